package dev.crucible.derive;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The result of deriving an environment from a workflow job: the manifest (as a YAML/JSON tree in the
 * shape of an RLEnvironment) and everything it was made from, so callers such as the operator can
 * show the parts in status without re-reading the manifest.
 *
 * @param workflowPath       the workflow file as given
 * @param commit             the full commit id it was read at, or null when read from the working tree
 * @param jobId              the job used
 * @param jobLine            its line in the workflow
 * @param matrix             the chosen matrix combination, values as text (empty without a matrix)
 * @param matrixCombinations how many combinations the matrix has
 * @param setupScript        spec.setup.script
 * @param toolchains         spec.setup.toolchains, e.g. python → 3.11
 * @param env                spec.setup.env: workflow and job env with expressions resolved (no secrets)
 * @param secretEnv          spec.setup.secretEnv: variables the user must provide (from secrets and vars)
 * @param containerImage     the job's container image, used as spec.image; null when it had none
 * @param verifier           the test verifier (or lint, when the job only lints)
 * @param lint               the separate lint verifier, or null
 * @param steps              what became of every step, in order
 * @param notes              what the user should know about the job as a whole
 * @param manifest           the RLEnvironment manifest
 */
public record Derivation(String workflowPath, String commit, String jobId, int jobLine, Map<String, String> matrix,
        int matrixCombinations, String setupScript, Map<String, String> toolchains, Map<String, String> env,
        List<String> secretEnv, String containerImage, DerivedVerifier verifier, DerivedVerifier lint,
        List<StepReport> steps, List<String> notes, ObjectNode manifest) {

    /** The manifest as YAML, preceded by the step report as comments. */
    public String manifestYaml() {
        return ManifestYaml.render(this);
    }

    /** The report (steps, notes, choices) as JSON, for {@code --report FILE} and for tools. */
    public String reportJson() {
        return ReportJson.render(this);
    }

    /** For the RLEnvironment status: the fields of its derived section, as a Jackson tree. */
    public ObjectNode statusTree() {
        return ReportJson.status(this);
    }

    /** One line for a status message or an Event: what was derived and how many steps went where. */
    public String summary() {
        Map<Disposition, Long> counts = new java.util.EnumMap<>(Disposition.class);
        steps.forEach(s -> counts.merge(s.decision(), 1L, Long::sum));
        String command = verifier.command().lines().filter(l -> !l.isBlank() && !l.startsWith("#")
                && !l.equals("set -e")).findFirst().orElse(verifier.command());
        return "job '" + jobId + "'" + (matrix.isEmpty() ? "" : " " + ManifestYaml.describe(matrix)) + ": "
                + counts.getOrDefault(Disposition.SETUP, 0L) + " setup, " + counts.getOrDefault(Disposition.TEST, 0L)
                + " test, " + counts.getOrDefault(Disposition.LINT, 0L) + " lint, "
                + counts.getOrDefault(Disposition.DROPPED, 0L) + " dropped step(s); verifier: " + command
                + (verifier.steps().size() > 1 ? " ..." : "");
    }

    /** The name given to the derived environment (metadata.name). */
    public String name() {
        return manifest.path("metadata").path("name").asText();
    }
}
