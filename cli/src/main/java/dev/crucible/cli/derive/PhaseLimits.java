package dev.crucible.cli.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Limits for the phases of a baseline run: setup and grading, each bounded on its own, so that a repository whose
 * setup downloads for ten minutes ends with "setup timed out after N s" rather than as the batch's anonymous
 * timeout (syncthing, bat at load 120). Applied to the copy of the manifest the baseline runs, never to the one
 * derive writes: the user's runs keep what CI's own limits gave. Null: the manifest's value.
 *
 * @param setup   seconds for spec.setup.timeoutSeconds in each baseline run
 * @param grading seconds for spec.verifier.timeoutSeconds in each baseline run
 */
record PhaseLimits(Long setup, Long grading) {
    /**
     * A batch's defaults: setup 40% and each grading 25% of {@code --repo-timeout} (two baseline runs, of which only the
     * first pays for setup's downloads; the rest is derive itself and the scratch's deletion). Given limits win.
     */
    static PhaseLimits forBatch(long repoTimeout, Long setup, Long grading) {
        return new PhaseLimits(setup != null ? setup : Math.max(1, repoTimeout * 2 / 5),
                grading != null ? grading : Math.max(1, repoTimeout / 4));
    }

    String describe() {
        return (setup == null ? "" : ", setup at most " + setup + " s") + (grading == null ? "" : ", each grading at most " + grading + " s");
    }

    /** {@code manifest} with the limits written in (YAML rewritten only when one is set). */
    String apply(String manifest) {
        if (setup == null && grading == null) return manifest;
        YAMLMapper yaml = new YAMLMapper();
        try {
            JsonNode root = yaml.readTree(manifest);
            if (!(root.path("spec") instanceof ObjectNode spec)) throw new IOException("the manifest has no spec");
            if (setup != null) spec.withObject("/setup").put("timeoutSeconds", setup);
            if (grading != null) spec.withObject("/verifier").put("timeoutSeconds", grading);
            return yaml.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException("writing the phase limits into the baseline's manifest", e);
        }
    }

    /**
     * The phase a run that failed stopped in, named with its limit, or null when it did not stop at one: setup's
     * "ran past its timeout" (AttemptSetup), grading's "timed out after Ns" (the grading strategies).
     */
    static String stopped(String message) {
        if (message == null) return null;
        if (message.contains("setup script ran past its timeout")) return "setup timed out (its limit, spec.setup.timeoutSeconds or --setup-timeout)";
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("timed out after (\\d+) ?s").matcher(message);
        if (m.find()) return "grading timed out after " + m.group(1) + " s (its limit, spec.verifier.timeoutSeconds or --grading-timeout)";
        return null;
    }
}
