package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.PatternSyntaxException;
import java.util.Set;

/**
 * Rules CEL cannot express: references between documents, globs that must compile, files a local
 * run will need. The admission webhook runs the same checks with {@link Context#cluster()}.
 */
public final class SemanticChecks {

    /** Annotation that marks a Rollout's environment as living elsewhere (another file, the cluster). */
    public static final String EXTERNAL_ENVIRONMENT = "crucible.dev/external-environment";

    /**
     * What the checks can see. Locally: the other documents and the files beside the manifest. In the
     * cluster: environments are looked up by the webhook, and local files do not exist.
     */
    public record Context(Set<String> knownEnvironments, boolean checkLocalFiles, boolean resolveReferences, Path outputDir,
                          Map<String, JsonNode> environmentSpecs) {
        public Context {
            environmentSpecs = environmentSpecs == null ? Map.of() : environmentSpecs;
        }

        public Context(Set<String> knownEnvironments, boolean checkLocalFiles, boolean resolveReferences, Path outputDir) {
            this(knownEnvironments, checkLocalFiles, resolveReferences, outputDir, Map.of());
        }

        public Context(Set<String> knownEnvironments, boolean checkLocalFiles, boolean resolveReferences) {
            this(knownEnvironments, checkLocalFiles, resolveReferences, null);
        }

        /** Locally, with the specs of the environments among the given documents (namespace/name → spec). */
        public static Context local(Map<String, JsonNode> environmentSpecs, Path outputDir) {
            return new Context(environmentSpecs.keySet(), true, true, outputDir, environmentSpecs);
        }

        public static Context local(Set<String> environments) {
            return new Context(environments, true, true);
        }

        /** A local run writing into {@code outputDir}: a workspace holding it is refused. */
        public static Context local(Set<String> environments, Path outputDir) {
            return new Context(environments, true, true, outputDir);
        }

        public static Context cluster() {
            return new Context(Set.of(), false, false);
        }
    }

    private SemanticChecks() {
    }

    static void check(Manifest m, Context ctx, List<ValidationError> errors) {
        JsonNode spec = m.body().path("spec");
        switch (String.valueOf(m.kind())) {
            case "RLEnvironment" -> environment(m, spec, ctx, errors);
            case "Rollout" -> rollout(m, spec, ctx, errors);
            default -> {
            }
        }
    }

    private static void environment(Manifest m, JsonNode spec, Context ctx, List<ValidationError> errors) {
        JsonNode verifier = spec.path("verifier");
        testLists(m, verifier, "spec.verifier", errors);
        JsonNode components = verifier.path("components");
        for (int i = 0; i < components.size(); i++) {
            // Each composite component grades with its own lists, so the same rules hold inside it.
            testLists(m, components.get(i), "spec.verifier.components[" + i + "]", errors);
        }
        JsonNode globs = verifier.path("protectedPaths");
        for (int i = 0; i < globs.size(); i++) {
            String glob = globs.get(i).asText();
            String at = "spec.verifier.protectedPaths[" + i + "]";
            if (glob.startsWith("/") || Path.of(glob.replace("*", "x")).normalize().startsWith("..")) {
                errors.add(m.error(at, "must be relative to the workspace and stay inside it"));
                continue;
            }
            try {
                FileSystems.getDefault().getPathMatcher("glob:" + glob);
            } catch (PatternSyntaxException e) {
                errors.add(m.error(at, "not a valid glob: " + e.getDescription() + " at index " + e.getIndex()));
            } catch (RuntimeException e) {
                errors.add(m.error(at, "not a valid glob: " + e.getMessage()));
            }
        }
        if (ctx.checkLocalFiles()) {
            localFile(m, spec.path("workspace").path("path"), "spec.workspace.path", true, errors);
            localFile(m, verifier.path("hiddenTests").path("path"), "spec.verifier.hiddenTests.path", true, errors);
            localFile(m, verifier.path("hiddenTests").path("patch"), "spec.verifier.hiddenTests.patch", false, errors);
            workspacePath(m, spec, ctx, errors);
        }
    }

    private static void rollout(Manifest m, JsonNode spec, Context ctx, List<ValidationError> errors) {
        JsonNode ref = spec.path("environmentRef").path("name");
        boolean external = "true".equals(m.body().path("metadata").path("annotations").path(EXTERNAL_ENVIRONMENT).asText());
        if (ctx.resolveReferences() && ref.isTextual() && !external
                && !ctx.knownEnvironments().contains(m.namespace() + "/" + ref.asText())) {
            errors.add(m.error("spec.environmentRef.name", "RLEnvironment " + ref.asText()
                    + " is not among the given files; add it, or annotate the Rollout with "
                    + EXTERNAL_ENVIRONMENT + ": \"true\""));
        }
        JsonNode env = ref.isTextual() ? ctx.environmentSpecs().get(m.namespace() + "/" + ref.asText()) : null;
        if (env != null && "revert".equals(env.path("hackPolicy").path("action").asText())
                && !spec.path("snapshotPolicy").path("intervalSeconds").isNumber()) {
            // revert restarts from the last periodic snapshot; without snapshots it could only flag.
            errors.add(m.error("spec.snapshotPolicy", "RLEnvironment " + ref.asText()
                    + " has hackPolicy.action: revert, which needs periodic snapshots to revert to; set spec.snapshotPolicy.intervalSeconds"));
        }
    }

    /** failToPass and passToPass of the verifier or of one composite component: no test in both, none twice. */
    private static void testLists(Manifest m, JsonNode check, String at, List<ValidationError> errors) {
        Set<String> failToPass = new HashSet<>();
        check.path("failToPass").forEach(t -> failToPass.add(t.asText()));
        JsonNode p2p = check.path("passToPass");
        for (int i = 0; i < p2p.size(); i++) {
            if (failToPass.contains(p2p.get(i).asText())) {
                errors.add(m.error(at + ".passToPass[" + i + "]",
                        "test " + p2p.get(i).asText() + " is also in failToPass; a test cannot be both"));
            }
        }
        duplicates(m, check.path("failToPass"), at + ".failToPass", errors);
        duplicates(m, p2p, at + ".passToPass", errors);
    }

    private static void duplicates(Manifest m, JsonNode list, String path, List<ValidationError> errors) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            if (!seen.add(list.get(i).asText())) {
                errors.add(m.error(path + "[" + i + "]", "duplicate test id " + list.get(i).asText()));
            }
        }
    }

    /** {@link WorkspacePathRules}: not /, the checkout's root, a folder holding the manifest, hidden tests or output. */
    private static void workspacePath(Manifest m, JsonNode spec, Context ctx, List<ValidationError> errors) {
        JsonNode value = spec.path("workspace").path("path");
        if (!value.isTextual() || value.asText().isEmpty()) {
            return;
        }
        Path manifest = Path.of(m.file()).toAbsolutePath().normalize();
        Path base = manifest.getParent();
        List<Path> hidden = new java.util.ArrayList<>();
        JsonNode h = spec.path("verifier").path("hiddenTests");
        if (h.path("path").isTextual()) hidden.add(base.resolve(h.path("path").asText()).normalize());
        if (h.path("patch").isTextual()) hidden.add(base.resolve(h.path("patch").asText()).normalize());
        String why = WorkspacePathRules.refusal(base.resolve(value.asText()).normalize(), manifest, ctx.outputDir(), hidden);
        if (why != null) {
            errors.add(m.error("spec.workspace.path", why));
        }
    }

    private static void localFile(Manifest m, JsonNode value, String path, boolean directory, List<ValidationError> errors) {
        if (!value.isTextual()) {
            return;
        }
        Path base = Path.of(m.file()).toAbsolutePath().getParent();
        Path target = base == null ? Path.of(value.asText()) : base.resolve(value.asText()).normalize();
        if (directory ? !Files.isDirectory(target) : !Files.isRegularFile(target)) {
            errors.add(m.error(path, (directory ? "directory " : "file ") + target + " does not exist"));
        }
    }
}
