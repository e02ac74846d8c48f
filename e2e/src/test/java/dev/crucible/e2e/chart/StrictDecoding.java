package dev.crucible.e2e.chart;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes rendered manifests into Fabric8's typed models and reports every field the model does not
 * know (Fabric8 keeps those in {@code additionalProperties}): the same thing the API server's strict
 * field validation would refuse.
 */
final class StrictDecoding {

    private StrictDecoding() {
    }

    @SuppressWarnings("deprecation")
    static List<HasMetadata> decode(String multiDocYaml) {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : multiDocYaml.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
                continue;
            }
            Object parsed = Serialization.unmarshal(doc);
            if (parsed instanceof HasMetadata resource) {
                out.add(resource);
            } else {
                throw new IllegalArgumentException("not a Kubernetes object:\n" + doc);
            }
        }
        return out;
    }

    /** Field paths Fabric8 could not map, e.g. {@code spec.template.spec.containers[0].livenessProb}. */
    static List<String> unknownFields(HasMetadata resource) {
        List<String> out = new ArrayList<>();
        if (!(resource instanceof GenericKubernetesResource)) {
            walk(resource, "", out, new IdentityHashMap<>());
        }
        return out;
    }

    private static void walk(Object node, String path, List<String> out, Map<Object, Boolean> seen) {
        if (node == null || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                walk(item, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "." + k, out, seen));
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Class<?> c = node.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                try {
                    f.setAccessible(true);
                    Object value = f.get(node);
                    if (f.getName().equals("additionalProperties") && value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                        extra.keySet().forEach(k -> out.add(path + "." + k));
                    } else if (!f.getName().equals("additionalProperties")) {
                        walk(value, path + "." + f.getName(), out, seen);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // inaccessible JDK internals are not part of the model
                }
            }
        }
    }
}
