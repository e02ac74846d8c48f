package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import java.util.List;

/**
 * One pod the rollout needs: a replica of a role, with what it asks for.
 *
 * @param role      role name ("main" without a topology)
 * @param index     replica index within the role
 * @param gpus      nvidia.com/gpu devices; 0 keeps the pod off GPU nodes
 * @param resources CPU, memory, disk and GPU model (role override or environment default)
 * @param command   command of the agent container for this role, or null
 * @param leader    the member whose verifier result is the rollout's result
 */
public record MemberPlan(String role, int index, int gpus, ResourcesSpec resources, List<String> command,
                         boolean leader) {

    public String podName(String rollout) {
        return RolloutLabels.podName(rollout, role, index);
    }
}
