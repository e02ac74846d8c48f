package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a document against a CRD's openAPIV3Schema with a real JSON-schema library. The schema is
 * made strict first: objects with declared properties reject unknown fields, as the API server's
 * strict field validation does (kubectl apply --validate=strict, the default).
 */
final class StrictJsonSchema {

    private final JsonSchema schema;

    StrictJsonSchema(JsonNode openApiV3Schema) {
        ObjectNode strict = (ObjectNode) strictCopy(openApiV3Schema);
        // The generated schema describes spec and status only; every object also has these.
        ObjectNode props = strict.withObject("/properties");
        props.putObject("apiVersion").put("type", "string");
        props.putObject("kind").put("type", "string");
        props.set("metadata", ObjectMetaSchema.SCHEMA.deepCopy());
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder()
                .pathType(com.networknt.schema.PathType.JSON_PATH)
                .regularExpressionFactory(Re2Patterns.INSTANCE)
                .build();
        this.schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(strict, config);
    }

    /** Field path and message per violation. */
    List<Map.Entry<String, String>> validate(JsonNode document) {
        Set<ValidationMessage> messages = schema.validate(document);
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (ValidationMessage m : messages) {
            String path = FieldPaths.fromSchemaLocation(m.getInstanceLocation().toString());
            String type = m.getType();
            String message = stripLocation(m.getMessage());
            if (("required".equals(type) || "additionalProperties".equals(type)) && m.getProperty() != null) {
                path = FieldPaths.child(path, m.getProperty());
                message = "required".equals(type) ? "required field is missing" : "unknown field";
            }
            out.add(Map.entry(path, message));
        }
        return out;
    }

    private static String stripLocation(String message) {
        int colon = message.indexOf(": ");
        return message.startsWith("$") && colon > 0 ? message.substring(colon + 2) : message;
    }

    /** Copies the schema, closing objects and dropping Kubernetes-only keywords the library does not know. */
    static JsonNode strictCopy(JsonNode node) {
        if (!node.isObject()) {
            return node.deepCopy();
        }
        ObjectNode out = ((ObjectNode) node).deepCopy();
        boolean preserve = out.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        for (Iterator<String> it = out.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (key.startsWith("x-kubernetes-") || key.equals("nullable")) {
                it.remove();
            }
        }
        if (out.has("properties")) {
            ObjectNode props = (ObjectNode) out.get("properties");
            props.fields().forEachRemaining(e -> props.set(e.getKey(), strictCopy(e.getValue())));
            if (!preserve && !out.has("additionalProperties")) {
                out.put("additionalProperties", false);
            }
        }
        if (out.has("items")) {
            out.set("items", strictCopy(out.get("items")));
        }
        if (out.path("additionalProperties").isObject()) {
            out.set("additionalProperties", strictCopy(out.get("additionalProperties")));
        }
        return out;
    }
}
