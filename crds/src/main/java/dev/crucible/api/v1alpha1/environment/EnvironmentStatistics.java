package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Statistics over the Rollouts that reference the environment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnvironmentStatistics {
    public Integer rollouts;
    public Integer running;
    public Integer succeeded;
    public Integer failed;
    public Integer hacked;
    public Integer timedOut;
    @JsonPropertyDescription("Rollouts with reward at the verifier's full mark.")
    public Integer solved;
    @JsonPropertyDescription("solved / finished rollouts whose agent ran (infrastructure failures do not count).")
    public Double solveRate;
    @JsonPropertyDescription("Finished rollouts whose agent never ran (rejected restore, pods never running, a member lost before start), or that lost a node under them (reason NodeLost): not attempts, left out of solveRate.")
    public Integer infrastructureFailures;
    public Integer learnableGroups;
    public List<GroupStatistics> groups;
}
