package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.regex.Pattern;

/** Object metadata rules the API server applies to every object (the CRD schema leaves metadata open). */
final class MetadataChecks {

    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
    private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    private static final Pattern LABEL_VALUE = Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
    private static final Pattern LABEL_NAME = Pattern.compile("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");

    private MetadataChecks() {
    }

    static void check(Manifest m, List<ValidationError> errors) {
        JsonNode meta = m.body().path("metadata");
        if (!meta.isObject()) {
            errors.add(m.error("metadata", "required object is missing"));
            return;
        }
        JsonNode name = meta.path("name");
        if (name.isMissingNode() && !meta.path("generateName").isTextual()) {
            errors.add(m.error("metadata.name", "required field is missing"));
        } else if (!name.isMissingNode()) {
            if (!name.isTextual() || name.asText().length() > 253 || !DNS_SUBDOMAIN.matcher(name.asText()).matches()) {
                errors.add(m.error("metadata.name", "must be a lowercase RFC 1123 subdomain of at most 253 characters"));
            }
        }
        JsonNode ns = meta.path("namespace");
        if (!ns.isMissingNode() && (!ns.isTextual() || ns.asText().length() > 63 || !DNS_LABEL.matcher(ns.asText()).matches())) {
            errors.add(m.error("metadata.namespace", "must be a lowercase RFC 1123 label of at most 63 characters"));
        }
        checkMap(m, meta.path("labels"), "metadata.labels", true, errors);
        checkMap(m, meta.path("annotations"), "metadata.annotations", false, errors);
    }

    private static void checkMap(Manifest m, JsonNode map, String path, boolean labels, List<ValidationError> errors) {
        if (map.isMissingNode()) {
            return;
        }
        if (!map.isObject()) {
            errors.add(m.error(path, "must be a map of strings"));
            return;
        }
        map.fields().forEachRemaining(e -> {
            String at = FieldPaths.child(path, e.getKey());
            if (!validKey(e.getKey())) {
                errors.add(m.error(at, "invalid key: a qualified name ([prefix/]name, name at most 63 characters)"));
            }
            if (!e.getValue().isTextual()) {
                errors.add(m.error(at, "value must be a string"));
            } else if (labels && (e.getValue().asText().length() > 63 || !LABEL_VALUE.matcher(e.getValue().asText()).matches())) {
                errors.add(m.error(at, "invalid label value: at most 63 characters, alphanumerics, '-', '_' or '.'"));
            }
        });
    }

    private static boolean validKey(String key) {
        int slash = key.indexOf('/');
        String prefix = slash >= 0 ? key.substring(0, slash) : null;
        String name = slash >= 0 ? key.substring(slash + 1) : key;
        if (prefix != null && (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches())) {
            return false;
        }
        return name.length() <= 63 && LABEL_NAME.matcher(name).matches();
    }
}
