package dev.crucible.verifier.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads an RLEnvironment manifest (YAML or JSON; the whole document or just its spec) into
 * {@link EnvironmentSpec} without the Fabric8 API types, so the sidecar image stays small.
 */
public final class ManifestReader {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private ManifestReader() {}

    public static EnvironmentSpec read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
        }
        return parse(text, file.toString());
    }

    /** YAML is a superset of JSON, so one parser reads both. */
    public static EnvironmentSpec parse(String text, String source) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": not valid YAML/JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(source + ": expected a mapping (an RLEnvironment or its spec)");
        }
        String prefix = "spec.";
        JsonNode spec = root;
        if (root.has("kind") || root.has("apiVersion")) {
            String kind = root.path("kind").asText("");
            if (!kind.isEmpty() && !kind.equals("RLEnvironment")) {
                throw new ConfigException(source + ": kind: expected RLEnvironment, got " + kind);
            }
            spec = root.get("spec");
            if (spec == null || !spec.isObject()) {
                throw new ConfigException(source + ": spec: missing");
            }
        } else if (root.has("spec") && root.get("spec").isObject()) {
            spec = root.get("spec");
        }
        nestComponents(spec);
        EnvironmentSpec parsed;
        try {
            parsed = YAML.treeToValue(spec, EnvironmentSpec.class);
        } catch (MismatchedInputException e) {
            String field = e.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            String why = e instanceof InvalidFormatException ife
                    ? "invalid value '" + ife.getValue() + "'" : "wrong type";
            throw new ConfigException(source + ": " + prefix + field + ": " + why, e);
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": " + e.getOriginalMessage(), e);
        }
        SpecValidator.validate(parsed, source);
        return parsed;
    }

    /**
     * A composite verifier's components, as the CRD writes them (each one's checks inline beside its name and
     * weight), in the shape {@link Component} reads ({@code verifier:} nested). A component that already nests
     * its checks is left as it is.
     */
    static void nestComponents(JsonNode spec) {
        JsonNode components = spec.path("verifier").path("components");
        if (!components.isArray()) return;
        for (JsonNode c : components) {
            if (!(c instanceof ObjectNode component) || component.has("verifier")) continue;
            ObjectNode checks = component.objectNode();
            List<String> names = new ArrayList<>();
            component.fieldNames().forEachRemaining(names::add);
            for (String field : names) {
                if (!field.equals("name") && !field.equals("weight")) checks.set(field, component.remove(field));
            }
            component.set("verifier", checks);
        }
    }
}
