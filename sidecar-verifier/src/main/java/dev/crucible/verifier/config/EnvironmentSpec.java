package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** The parts of an RLEnvironment's spec the verifier uses; everything else is ignored. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EnvironmentSpec(Workspace workspace, Setup setup, Task task, List<String> tools,
                              VerifierSpec verifier, HackPolicy hackPolicy) {

    public static final List<String> ALL_TOOLS = List.of("bash", "read_file", "write_file", "edit", "list");

    public EnvironmentSpec {
        tools = tools == null || tools.isEmpty() ? ALL_TOOLS : List.copyOf(tools);
        hackPolicy = hackPolicy == null ? HackPolicy.DEFAULT : hackPolicy;
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Workspace(String path, String mountPath) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Setup(String script, Integer timeoutSeconds) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Task(String prompt) {}
}
