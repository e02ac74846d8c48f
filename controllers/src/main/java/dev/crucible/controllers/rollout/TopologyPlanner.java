package dev.crucible.controllers.rollout;

import dev.crucible.contract.SpecDefaults;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.environment.RoleSpec;
import dev.crucible.api.v1alpha1.environment.TopologySpec;
import java.util.ArrayList;
import java.util.List;

/** Turns an environment's topology into the list of pods a rollout needs (pure). */
public final class TopologyPlanner {

    public static final int DEFAULT_GANG_TIMEOUT_SECONDS = SpecDefaults.GANG_TIMEOUT_SECONDS;

    private TopologyPlanner() {
    }

    public static List<MemberPlan> plan(RLEnvironmentSpec env) {
        ResourcesSpec base = env.resources == null ? new ResourcesSpec() : env.resources;
        TopologySpec topology = env.topology;
        if (topology == null || topology.roles == null || topology.roles.isEmpty()) {
            return List.of(new MemberPlan(RolloutLabels.SINGLE_ROLE, 0, gpus(base), base, null, true));
        }
        List<MemberPlan> members = new ArrayList<>();
        for (RoleSpec role : topology.roles) {
            ResourcesSpec resources = merge(base, role.resources);
            int gpus = role.gpusPerReplica != null ? role.gpusPerReplica : gpus(resources);
            int replicas = role.replicas == null ? 1 : role.replicas;
            for (int i = 0; i < replicas; i++) {
                members.add(new MemberPlan(role.name, i, gpus, resources, role.command, members.isEmpty()));
            }
        }
        return members;
    }

    /** A gang is any rollout with more than one pod: it is started all-or-nothing. */
    public static boolean isGang(List<MemberPlan> members) {
        return members.size() > 1;
    }

    public static int gangTimeoutSeconds(RLEnvironmentSpec env) {
        return env.topology == null || env.topology.gangTimeoutSeconds == null
                ? DEFAULT_GANG_TIMEOUT_SECONDS : env.topology.gangTimeoutSeconds;
    }

    private static int gpus(ResourcesSpec r) {
        return r.gpus == null ? 0 : r.gpus;
    }

    /** Role resources override the environment's field by field. */
    private static ResourcesSpec merge(ResourcesSpec base, ResourcesSpec override) {
        if (override == null) {
            return base;
        }
        ResourcesSpec r = new ResourcesSpec();
        r.cpu = override.cpu != null ? override.cpu : base.cpu;
        r.memory = override.memory != null ? override.memory : base.memory;
        r.ephemeralStorage = override.ephemeralStorage != null ? override.ephemeralStorage : base.ephemeralStorage;
        r.gpus = override.gpus != null ? override.gpus : base.gpus;
        r.gpuModel = override.gpuModel != null ? override.gpuModel : base.gpuModel;
        return r;
    }
}
