package dev.crucible.api.v1alpha1.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.common.HackFinding;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Observed state of a rollout: phase, reward, findings, members, timings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutStatus {
    public Long observedGeneration;
    public PhaseName phase;
    @JsonPropertyDescription("Machine-readable reason for the phase, e.g. DeadlineExceeded, GangTimeout.")
    public String reason;
    public String message;
    public List<Condition> conditions = new ArrayList<>();
    @JsonPropertyDescription("What a trainer should train on: the tests' score, floored (0, or -1 in coderl mode) when a counted reward-hack finding exists, under every hack policy action.")
    public Double reward;
    @JsonPropertyDescription("The score from the tests alone, before any finding floors it.")
    public Double testReward;
    @JsonPropertyDescription("Verifier verdict: pass, fail, partial, error.")
    public String verdict;
    @JsonPropertyDescription("Where the reward's test verdicts came from: isolated (every counted test ran split from the agent's code by the isolated oracle) or in-process; absent where no test suite was graded.")
    @ValidationRule(value = "self == 'isolated' || self == 'in-process'", message = "integrity must be isolated or in-process")
    public String integrity;
    public TestCounts tests;
    @JsonPropertyDescription("The verifier's full JSON report, shortened to 64 KiB.")
    public String verifierReport;
    public List<HackFinding> hackFindings;
    public Integer turns;
    @JsonPropertyDescription("What the sidecar kept of this rollout's trajectory; complete is false when part of it is missing from the trace store.")
    public TrajectoryKept trajectory;
    public List<RolloutMember> members;
    @JsonPropertyDescription("Address of the environment API (interactive mode).")
    public String endpoint;
    public RolloutTimings timings;
    @JsonPropertyDescription("Warm: the attempt took a ready pod of its environment's warm pool; Cold: its pods were created for it.")
    public String start;
    public String restoredFrom;
    public String lastSnapshot;
}
