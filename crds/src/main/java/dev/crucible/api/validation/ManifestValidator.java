package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one validator behind {@code crucible validate} and the admission webhook: CRD schema (strict),
 * CEL rules, object metadata, then semantic checks. It never throws on bad input; every problem
 * becomes a {@link ValidationError} that names a field path.
 */
public final class ManifestValidator {

    private final CrdSchemas crds;
    private final Path celCacheDir;
    // Built on first use, per kind: a one-file `crucible validate` pays only for the kinds it meets.
    private final Map<String, StrictJsonSchema> schemas = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile CelRules cel;

    public ManifestValidator() {
        this(new CrdSchemas());
    }

    public ManifestValidator(CrdSchemas crds) {
        this(crds, null);
    }

    private ManifestValidator(CrdSchemas crds, Path celCacheDir) {
        this.crds = crds;
        this.celCacheDir = celCacheDir;
    }

    /**
     * A validator that keeps the CRDs' parsed and type-checked CEL rules in {@code dir} between runs (keyed
     * by each CRD's SHA-256): for short-lived processes such as {@code crucible validate}, where compiling
     * the rules would dominate. Results are the same as without it.
     */
    public static ManifestValidator withRuleCache(Path dir) {
        ManifestValidator v = new ManifestValidator(new CrdSchemas(), dir);
        // Building the CEL runtime is the largest fixed cost left in a short run: do it beside the YAML
        // reading and the schema checks. A failure here is met again, and reported, on first use.
        Thread warm = new Thread(() -> {
            try {
                v.cel();
            } catch (RuntimeException | LinkageError ignored) {
                // reported by the validation that needs it
            }
        }, "cel-runtime");
        warm.setDaemon(true);
        warm.start();
        return v;
    }

    /** What {@link #check} found: the errors, and how many documents were read. */
    public record Report(List<ValidationError> errors, int documents) {
    }

    /** Reads and validates files and folders once: the errors and the number of documents. */
    public Report check(List<Path> paths, Path outputDir) {
        ManifestReader.Result read = new ManifestReader().read(paths);
        List<ValidationError> errors = new ArrayList<>(read.errors());
        errors.addAll(validateAll(read.manifests(), outputDir));
        return new Report(errors, read.manifests().size());
    }

    private StrictJsonSchema schema(CrdSchemas.Crd crd) {
        return schemas.computeIfAbsent(crd.kind(), k -> new StrictJsonSchema(crd.schema()));
    }

    private CelRules cel() {
        CelRules c = cel;
        if (c == null) {
            synchronized (this) {
                if (cel == null) {
                    cel = new CelRules(celCacheDir);
                }
                c = cel;
            }
        }
        return c;
    }

    /** Validates files and folders of multi-document YAML, resolving references among them. */
    public List<ValidationError> validatePaths(List<Path> paths) {
        return validatePaths(paths, null);
    }

    /** As {@link #validatePaths(List)}, for a local run writing into {@code outputDir} (a workspace holding it is refused). */
    public List<ValidationError> validatePaths(List<Path> paths, Path outputDir) {
        return check(paths, outputDir).errors();
    }

    /** Validates documents that are checked together (references between them resolve). */
    public List<ValidationError> validateAll(List<Manifest> manifests) {
        return validateAll(manifests, null);
    }

    private List<ValidationError> validateAll(List<Manifest> manifests, Path outputDir) {
        Map<String, JsonNode> environments = new HashMap<>();
        for (Manifest m : manifests) {
            if ("RLEnvironment".equals(m.kind()) && m.name() != null) {
                environments.put(m.namespace() + "/" + m.name(), m.body().path("spec"));
            }
        }
        SemanticChecks.Context ctx = SemanticChecks.Context.local(environments, outputDir);
        List<ValidationError> errors = new ArrayList<>();
        for (Manifest m : manifests) {
            errors.addAll(validate(m, ctx));
        }
        return errors;
    }

    /** Validates one document in the given context (the webhook passes {@link SemanticChecks.Context#cluster()}). */
    public List<ValidationError> validate(Manifest m, SemanticChecks.Context ctx) {
        List<ValidationError> errors = new ArrayList<>();
        try {
            if (!m.isObject()) {
                errors.add(m.error("(document)", "a manifest must be a YAML mapping"));
                return errors;
            }
            CrdSchemas.Crd crd = typeOf(m, errors);
            if (crd == null) {
                return errors;
            }
            ObjectNode body = ((ObjectNode) m.body()).deepCopy();
            SchemaDefaults.apply(crd.schema(), body);
            if (body.get("metadata") instanceof ObjectNode meta) {
                // ObjectMeta decodes a null field as absent (labels: with nothing under it).
                meta.properties().removeIf(e -> e.getValue().isNull());
            }
            MetadataChecks.check(m.withBody(body), errors);
            for (Map.Entry<String, String> v : schema(crd).validate(body)) {
                errors.add(m.error(v.getKey(), v.getValue()));
            }
            if (errors.isEmpty()) {
                for (CelRules.Violation v : cel().evaluate(crd, body)) {
                    errors.add(m.error(v.path(), v.message()));
                }
            }
            if (errors.isEmpty()) {
                SemanticChecks.check(m.withBody(body), ctx, errors);
            }
        } catch (RuntimeException e) {
            // A validator bug must not look like valid input, nor crash the caller.
            errors.add(m.error("(document)", "internal validation error: " + e));
        }
        return errors;
    }

    private CrdSchemas.Crd typeOf(Manifest m, List<ValidationError> errors) {
        JsonNode kind = m.body().path("kind");
        JsonNode apiVersion = m.body().path("apiVersion");
        if (!apiVersion.isTextual()) {
            errors.add(m.error("apiVersion", "required field is missing"));
        }
        if (!kind.isTextual()) {
            errors.add(m.error("kind", "required field is missing"));
            return null;
        }
        CrdSchemas.Crd crd = crds.forKind(kind.asText());
        if (crd == null) {
            errors.add(m.error("kind", "unknown kind " + kind.asText() + "; expected one of " + CrdSchemas.kinds()));
            return null;
        }
        if (apiVersion.isTextual() && !crd.apiVersion().equals(apiVersion.asText())) {
            errors.add(m.error("apiVersion", "must be " + crd.apiVersion() + " for " + crd.kind()));
            return null;
        }
        return errors.isEmpty() ? crd : null;
    }
}
