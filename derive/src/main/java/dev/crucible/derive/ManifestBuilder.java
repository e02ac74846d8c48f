package dev.crucible.derive;

import dev.crucible.contract.RewardMode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Builds the RLEnvironment manifest as a plain YAML/JSON tree, field names as in
 * examples/python-bugfix/environment.yaml, so this package needs none of the API types.
 */
final class ManifestBuilder {
    static final String API_VERSION = "crucible.dev/v1alpha1";
    static final String PROMPT_PLACEHOLDER = """
            TODO: describe the task for the agent. This environment was derived from the repository's CI;
            its verifier runs the CI test command shown below.
            """;
    static final List<String> DEFAULT_TOOLS = List.of("bash", "read_file", "write_file", "edit", "list");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ManifestBuilder() {
    }

    static ObjectNode build(Path repo, String workflowPath, String commit, String jobId, Map<String, String> matrix,
            String testStep,
            String containerImage, String setupScript, int setupTimeoutSeconds, Map<String, String> toolchains,
            Map<String, String> env, List<String> secretEnv, DerivedVerifier verifier, DerivedVerifier lint) {
        ObjectNode root = JSON.createObjectNode();
        root.put("apiVersion", API_VERSION);
        root.put("kind", "RLEnvironment");
        ObjectNode metadata = root.putObject("metadata");
        Path name = repo.toAbsolutePath().normalize().getFileName();
        metadata.put("name", DnsNames.of(name == null ? "repo" : name.toString(), jobId));
        metadata.putObject("labels").put("crucible.dev/derived-from", "workflow");

        ObjectNode spec = root.putObject("spec");
        if (containerImage != null) {
            spec.put("image", containerImage);
        }
        String repoPath = repo.toAbsolutePath().normalize().toString();
        ObjectNode source = spec.putObject("source");
        source.put("repo", repoPath);
        if (commit != null) {
            source.put("commit", commit);
        }
        source.put("workflow", workflowPath);
        source.put("job", jobId);
        if (!matrix.isEmpty()) {
            ObjectNode m = source.putObject("matrix");
            matrix.forEach(m::put);
        }
        if (testStep != null) {
            source.put("testStep", testStep);
        }
        spec.putObject("workspace").put("path", repoPath);

        ObjectNode setup = spec.putObject("setup");
        setup.put("script", setupScript);
        setup.put("timeoutSeconds", setupTimeoutSeconds);
        if (!toolchains.isEmpty()) {
            ObjectNode t = setup.putObject("toolchains");
            toolchains.forEach(t::put);
        }
        if (!env.isEmpty()) {
            ObjectNode e = setup.putObject("env");
            env.forEach(e::put);
        }
        if (!secretEnv.isEmpty()) {
            ArrayNode s = setup.putArray("secretEnv");
            secretEnv.forEach(s::add);
        }

        spec.putObject("task").put("prompt", PROMPT_PLACEHOLDER);
        ArrayNode tools = spec.putArray("tools");
        DEFAULT_TOOLS.forEach(tools::add);

        ObjectNode v = spec.putObject("verifier");
        verifierFields(v, verifier);
        v.put("rewardMode", RewardMode.BINARY.wire());
        if ("test-suite".equals(verifier.type())) {
            // CI counts a skipped test (t.Skip, #[ignore], pytest.skip) as no failure; so does the whole-suite grade.
            v.put("countSkippedAsPassed", true);
        }
        if (!verifier.name().equals("lint")) {
            // Test files are graded from the pristine copy: editing a test never makes it pass.
            ArrayNode globs = v.putArray("protectedPaths");
            TestPaths.protectedGlobs(toolchains, verifier.command()).forEach(globs::add);
        }
        if (lint != null) {
            ObjectNode l = spec.putArray("additionalVerifiers").addObject();
            l.put("name", lint.name());
            verifierFields(l, lint);
        }
        return root;
    }

    private static void verifierFields(ObjectNode v, DerivedVerifier d) {
        v.put("type", d.type());
        if (d.framework() != null) {
            v.put("framework", d.framework());
        }
        v.put("command", d.command());
        if (d.reportPath() != null) {
            v.put("reportPath", d.reportPath());
        }
        v.put("timeoutSeconds", d.timeoutSeconds());
    }
}
