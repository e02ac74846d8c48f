package dev.crucible.api.compat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds changes between two versions of a CRD that would break objects or clients written against
 * the older one: removed versions or fields, changed types, new required fields, narrowed enums,
 * tightened bounds or patterns, and new CEL rules. Widening changes pass.
 */
public final class CrdCompatibility {

    private CrdCompatibility() {
    }

    public static List<String> breakingChanges(JsonNode oldCrd, JsonNode newCrd) {
        List<String> out = new ArrayList<>();
        if (!oldCrd.path("spec").path("group").equals(newCrd.path("spec").path("group"))) {
            out.add("spec.group changed");
        }
        if (!oldCrd.path("spec").path("scope").equals(newCrd.path("spec").path("scope"))) {
            out.add("spec.scope changed");
        }
        for (JsonNode oldVersion : oldCrd.path("spec").path("versions")) {
            String name = oldVersion.path("name").asText();
            JsonNode newVersion = findVersion(newCrd, name);
            if (newVersion == null) {
                out.add("version " + name + " removed");
                continue;
            }
            compare(oldVersion.path("schema").path("openAPIV3Schema"),
                    newVersion.path("schema").path("openAPIV3Schema"), name, out);
        }
        return out;
    }

    private static JsonNode findVersion(JsonNode crd, String name) {
        for (JsonNode v : crd.path("spec").path("versions")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        return null;
    }

    private static void compare(JsonNode before, JsonNode after, String path, List<String> out) {
        String type = before.path("type").asText();
        if (!type.equals(after.path("type").asText())) {
            out.add(path + ": type changed from " + type + " to " + after.path("type").asText());
            return;
        }
        before.path("properties").fields().forEachRemaining(e -> {
            JsonNode now = after.path("properties").get(e.getKey());
            if (now == null) {
                out.add(path + "." + e.getKey() + ": field removed");
            } else {
                compare(e.getValue(), now, path + "." + e.getKey(), out);
            }
        });
        Set<String> required = strings(before.path("required"));
        for (String r : strings(after.path("required"))) {
            if (!required.contains(r)) {
                out.add(path + "." + r + ": newly required");
            }
        }
        if (after.has("enum")) {
            Set<String> allowed = strings(after.path("enum"));
            if (!before.has("enum")) {
                out.add(path + ": enum added");
            } else {
                for (String v : strings(before.path("enum"))) {
                    if (!allowed.contains(v)) {
                        out.add(path + ": enum value " + v + " removed");
                    }
                }
            }
        }
        tighterMax(before, after, "maximum", path, out);
        tighterMax(before, after, "maxLength", path, out);
        tighterMax(before, after, "maxItems", path, out);
        tighterMin(before, after, "minimum", path, out);
        tighterMin(before, after, "minLength", path, out);
        tighterMin(before, after, "minItems", path, out);
        if (after.has("pattern") && !after.path("pattern").equals(before.path("pattern"))) {
            out.add(path + ": pattern changed to " + after.path("pattern").asText());
        }
        Set<String> rules = new HashSet<>();
        before.path("x-kubernetes-validations").forEach(r -> rules.add(r.path("rule").asText()));
        after.path("x-kubernetes-validations").forEach(r -> {
            if (!rules.contains(r.path("rule").asText())) {
                out.add(path + ": validation rule added: " + r.path("rule").asText());
            }
        });
        if (before.has("items") && after.has("items")) {
            compare(before.get("items"), after.get("items"), path + "[]", out);
        }
        if (before.path("additionalProperties").isObject() && after.path("additionalProperties").isObject()) {
            compare(before.get("additionalProperties"), after.get("additionalProperties"), path + "{}", out);
        }
    }

    private static void tighterMax(JsonNode before, JsonNode after, String key, String path, List<String> out) {
        if (after.has(key) && (!before.has(key) || after.get(key).asDouble() < before.get(key).asDouble())) {
            out.add(path + ": " + key + " lowered to " + after.get(key).asText());
        }
    }

    private static void tighterMin(JsonNode before, JsonNode after, String key, String path, List<String> out) {
        if (after.has(key) && (!before.has(key) || after.get(key).asDouble() > before.get(key).asDouble())) {
            out.add(path + ": " + key + " raised to " + after.get(key).asText());
        }
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new HashSet<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
