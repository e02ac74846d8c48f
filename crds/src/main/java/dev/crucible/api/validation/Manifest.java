package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * One YAML document read from a file, with where it came from: document numbers start at 1, {@code line}
 * is the document's first line and {@code lines} the line of each field path (empty when the document
 * did not come from YAML text, as in the webhook).
 */
public record Manifest(String file, int document, JsonNode body, int line, Map<String, Integer> lines) {

    public Manifest {
        lines = lines == null ? Map.of() : lines;
    }

    public Manifest(String file, int document, JsonNode body) {
        this(file, document, body, 0, Map.of());
    }

    /** The same document with another body (defaults applied), keeping where it came from. */
    public Manifest withBody(JsonNode newBody) {
        return new Manifest(file, document, newBody, line, lines);
    }

    public String kind() {
        return text("kind");
    }

    public String apiVersion() {
        return text("apiVersion");
    }

    public String name() {
        JsonNode meta = body.path("metadata");
        return meta.path("name").isTextual() ? meta.path("name").asText() : null;
    }

    public String namespace() {
        JsonNode ns = body.path("metadata").path("namespace");
        return ns.isTextual() ? ns.asText() : "default";
    }

    public boolean isObject() {
        return body instanceof ObjectNode;
    }

    public ValidationError error(String path, String message) {
        return new ValidationError(file, document, kind(), name(), path, message, lineOf(path));
    }

    /** The line of {@code path}, or of its nearest ancestor written in the file (a missing field points at its parent). */
    public int lineOf(String path) {
        String p = path == null || path.startsWith("(") ? "" : path;
        while (true) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
            if (p.isEmpty()) {
                return line;
            }
            p = FieldPaths.parent(p);
        }
    }

    private String text(String field) {
        JsonNode n = body.path(field);
        return n.isTextual() ? n.asText() : null;
    }
}
