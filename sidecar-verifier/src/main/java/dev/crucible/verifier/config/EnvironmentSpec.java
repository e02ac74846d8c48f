package dev.crucible.verifier.config;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** The parts of an RLEnvironment's spec the verifier uses; everything else is ignored. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EnvironmentSpec(Workspace workspace, Setup setup, Task task, List<String> tools,
                              VerifierSpec verifier, HackPolicy hackPolicy, Source source) {

    public static final List<String> ALL_TOOLS = List.of("bash", "read_file", "write_file", "edit", "list");

    public EnvironmentSpec {
        tools = tools == null || tools.isEmpty() ? ALL_TOOLS : List.copyOf(tools);
        hackPolicy = hackPolicy == null ? HackPolicy.DEFAULT : hackPolicy;
    }

    public EnvironmentSpec(Workspace workspace, Setup setup, Task task, List<String> tools, VerifierSpec verifier, HackPolicy hackPolicy) {
        this(workspace, setup, task, tools, verifier, hackPolicy, null);
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Workspace(String path, String mountPath) {}

    /** {@code spec.source}: a repository at a commit; {@code history} is how much of it the agent's workspace keeps. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Source(String repo, String commit, String history) {
        /** One fresh commit of the task's tree (the default): nothing of any other commit. */
        public static final String COMMIT = "commit";
        /** The task commit's ancestry: still no other refs, no later objects, no remote. */
        public static final String ANCESTORS = "ancestors";

        public String historyOrDefault() { return history == null ? SpecDefaults.SOURCE_HISTORY : history; }
    }

    /** {@code env} and {@code toolchains}: spec.setup's, for the one execution environment of setup, agent and grading. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Setup(String script, Integer timeoutSeconds, java.util.Map<String, String> env, java.util.Map<String, String> toolchains) {
        @com.fasterxml.jackson.annotation.JsonCreator
        public Setup {
            env = env == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(env));
            toolchains = toolchains == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(toolchains));
        }

        public Setup(String script, Integer timeoutSeconds) { this(script, timeoutSeconds, null, null); }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Task(String prompt) {}
}
