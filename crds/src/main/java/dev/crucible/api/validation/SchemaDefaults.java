package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Applies the schema's defaults and prunes nulls the way the API server does before it runs CEL rules,
 * so a rule sees the same object here as in the cluster.
 */
final class SchemaDefaults {

    private SchemaDefaults() {
    }

    static void apply(JsonNode schema, JsonNode value) {
        if (value instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                if (it.next().getValue().isNull()) {
                    it.remove(); // non-nullable nulls are pruned by the API server
                }
            }
            JsonNode props = schema.path("properties");
            props.fields().forEachRemaining(e -> {
                JsonNode child = object.get(e.getKey());
                if (child == null && e.getValue().has("default")) {
                    object.set(e.getKey(), e.getValue().get("default").deepCopy());
                } else if (child != null) {
                    apply(e.getValue(), child);
                }
            });
            JsonNode additional = schema.path("additionalProperties");
            if (additional.isObject()) {
                object.fields().forEachRemaining(e -> apply(additional, e.getValue()));
            }
        } else if (value instanceof ArrayNode array && schema.has("items")) {
            array.forEach(item -> apply(schema.get("items"), item));
        }
    }
}
