package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code metadata} as the API server decodes it for a custom resource: ObjectMeta's fields and types,
 * and nothing else (strict field validation refuses {@code metadata.label} or a {@code spec} indented
 * under metadata). Name, label and annotation grammar are {@link MetadataChecks}.
 */
final class ObjectMetaSchema {

    private static final String STRING = "{\"type\":\"string\"}";
    private static final String NULLABLE_TIME = "{\"type\":[\"string\",\"null\"],"
            + "\"pattern\":\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$\"}";
    private static final String STRING_MAP = "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}";

    static final JsonNode SCHEMA = build();

    private ObjectMetaSchema() {
    }

    private static JsonNode build() {
        String json = """
                {"type": "object", "additionalProperties": false, "properties": {
                  "name": %1$s, "generateName": %1$s, "namespace": %1$s, "selfLink": %1$s, "uid": %1$s,
                  "resourceVersion": %1$s,
                  "generation": {"type": "integer"},
                  "creationTimestamp": %2$s, "deletionTimestamp": %2$s,
                  "deletionGracePeriodSeconds": {"type": "integer"},
                  "labels": %3$s, "annotations": %3$s,
                  "finalizers": {"type": "array", "items": %1$s},
                  "ownerReferences": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                    "required": ["apiVersion", "kind", "name", "uid"],
                    "properties": {"apiVersion": %1$s, "kind": %1$s, "name": %1$s, "uid": %1$s,
                      "controller": {"type": "boolean"}, "blockOwnerDeletion": {"type": "boolean"}}}},
                  "managedFields": {"type": "array", "items": {"type": "object"}}
                }}
                """.formatted(STRING, NULLABLE_TIME, STRING_MAP);
        try {
            return (ObjectNode) new ObjectMapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
