package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** One YAML document read from a file, with where it came from (document numbers start at 1). */
public record Manifest(String file, int document, JsonNode body) {

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
        return new ValidationError(file, document, kind(), name(), path, message);
    }

    private String text(String field) {
        JsonNode n = body.path(field);
        return n.isTextual() ? n.asText() : null;
    }
}
