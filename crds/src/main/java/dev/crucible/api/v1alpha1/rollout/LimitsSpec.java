package dev.crucible.api.v1alpha1.rollout;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Budget of one rollout; past it the rollout ends TimedOut. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LimitsSpec {
    @JsonPropertyDescription("Wall-clock limit from start to verdict, in seconds (up to 30 days).")
    @Default("" + SpecDefaults.MAX_DURATION_SECONDS)
    @Min(1)
    @Max(2592000)
    public Integer maxDurationSeconds;

    @JsonPropertyDescription("Most environment API steps (tool calls) the agent may take.")
    @Min(1)
    @Max(1000000)
    public Integer maxTurns;

    @JsonPropertyDescription("Most processes and threads the agent may have at once (the sandbox's pids limit; default 1024). Enforced by the local runtime; in a cluster the node's pod PID limit applies.")
    @Min(16)
    @Max(1000000)
    public Integer maxProcesses;

    @JsonPropertyDescription("CPU time the agent may use, in seconds (default: the CPU share times maxDurationSeconds). Enforced by the local runtime; in a cluster the CPU limit throttles instead.")
    @Min(1)
    @Max(2592000)
    public Integer maxCpuSeconds;
}
