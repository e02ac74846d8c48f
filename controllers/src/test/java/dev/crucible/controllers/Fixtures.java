package dev.crucible.controllers;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.RLEnvironmentBuilder;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutBuilder;
import dev.crucible.api.v1alpha1.environment.VerifierType;

/** Small RLEnvironments and Rollouts for unit tests. */
public final class Fixtures {

    private Fixtures() {
    }

    /** A CPU environment with a test command, protected tests, a RuntimeClass and an egress allow-list. */
    private static RLEnvironmentBuilder cpu(String name) {
        return RLEnvironmentBuilder.named("ns", name).generation(1).uid("env-uid").image("example/env:1").prompt("fix the bug")
                .verifier(VerifierType.EXECUTION, "pytest -q", "tests/**", "conftest.py", "src/**/test_*.py")
                .resources("1", "1Gi").sandbox("gvisor", "10.1.0.0/16:443", "192.168.0.0/24");
    }

    public static RLEnvironment cpuEnvironment(String name) {
        return cpu(name).build();
    }

    public static RLEnvironment gpuEnvironment(String name, int gpus) {
        return cpu(name).gpus(gpus, "NVIDIA-H100-80GB-HBM3").build();
    }

    public static RLEnvironment twoNodeEnvironment(String name, int gpusPerReplica) {
        return cpu(name).role("trainer", 2, gpusPerReplica, 60).build();
    }

    public static Rollout rollout(String name, String environment) {
        return RolloutBuilder.named("ns", name).generation(1).uid("uid-" + name).createdAt("2026-01-01T00:00:00Z").environment(environment)
                .agent("agent", "--go").maxDurationSeconds(600).build();
    }
}
