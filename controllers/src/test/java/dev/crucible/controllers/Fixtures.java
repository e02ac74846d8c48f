package dev.crucible.controllers;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.api.v1alpha1.environment.EgressMode;
import dev.crucible.api.v1alpha1.environment.NetworkSpec;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.environment.RoleSpec;
import dev.crucible.api.v1alpha1.environment.SandboxSpec;
import dev.crucible.api.v1alpha1.environment.TaskSpec;
import dev.crucible.api.v1alpha1.environment.TopologySpec;
import dev.crucible.api.v1alpha1.environment.VerifierSpec;
import dev.crucible.api.v1alpha1.environment.VerifierType;
import dev.crucible.api.v1alpha1.environment.WorkspaceSpec;
import dev.crucible.api.v1alpha1.rollout.AgentSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;

/** Small RLEnvironments and Rollouts for unit tests. */
public final class Fixtures {

    private Fixtures() {
    }

    public static RLEnvironment cpuEnvironment(String name) {
        RLEnvironment env = new RLEnvironment();
        env.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").withGeneration(1L).withUid("env-uid").build());
        RLEnvironmentSpec spec = new RLEnvironmentSpec();
        spec.image = "example/env:1";
        spec.workspace = new WorkspaceSpec();
        spec.task = new TaskSpec();
        spec.task.prompt = "fix the bug";
        spec.verifier = new VerifierSpec();
        spec.verifier.type = VerifierType.EXECUTION;
        spec.verifier.command = "pytest -q";
        spec.verifier.protectedPaths = List.of("tests/**", "conftest.py", "src/**/test_*.py");
        spec.resources = new ResourcesSpec();
        spec.resources.cpu = "1";
        spec.resources.memory = "1Gi";
        spec.sandbox = new SandboxSpec();
        spec.sandbox.runtimeClassName = "gvisor";
        spec.sandbox.network = new NetworkSpec();
        spec.sandbox.network.egress = EgressMode.ALLOW_LIST;
        spec.sandbox.network.allow = List.of("10.1.0.0/16:443", "192.168.0.0/24");
        env.setSpec(spec);
        return env;
    }

    public static RLEnvironment gpuEnvironment(String name, int gpus) {
        RLEnvironment env = cpuEnvironment(name);
        env.getSpec().resources.gpus = gpus;
        env.getSpec().resources.gpuModel = "NVIDIA-H100-80GB-HBM3";
        return env;
    }

    public static RLEnvironment twoNodeEnvironment(String name, int gpusPerReplica) {
        RLEnvironment env = cpuEnvironment(name);
        env.getSpec().topology = new TopologySpec();
        env.getSpec().topology.gangTimeoutSeconds = 60;
        RoleSpec role = new RoleSpec();
        role.name = "trainer";
        role.replicas = 2;
        role.gpusPerReplica = gpusPerReplica;
        env.getSpec().topology.roles = List.of(role);
        return env;
    }

    public static Rollout rollout(String name, String environment) {
        Rollout r = new Rollout();
        r.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").withGeneration(1L)
                .withUid("uid-" + name).withCreationTimestamp("2026-01-01T00:00:00Z").build());
        RolloutSpec spec = new RolloutSpec();
        spec.environmentRef = new ObjectRef(environment);
        spec.mode = RolloutMode.EMBEDDED;
        spec.agent = new AgentSpec();
        spec.agent.command = List.of("agent", "--go");
        spec.limits = new LimitsSpec();
        spec.limits.maxDurationSeconds = 600;
        r.setSpec(spec);
        return r;
    }
}
