package dev.crucible.api.v1alpha1;

import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.rollout.AgentSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.api.v1alpha1.rollout.RestoreFromSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A Rollout built in code (tests, the operator's revert branch); see {@link RLEnvironmentBuilder} for why
 * the API types have a hand-made builder.
 */
public final class RolloutBuilder {
    private final Rollout rollout = new Rollout();
    private final RolloutSpec spec = new RolloutSpec();

    private RolloutBuilder(String namespace, String name) {
        rollout.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        rollout.setSpec(spec);
    }

    public static RolloutBuilder named(String namespace, String name) {
        return new RolloutBuilder(namespace, name);
    }

    /** As the API server would have set it (tests of observedGeneration); never set on an object to apply. */
    public RolloutBuilder generation(long generation) {
        rollout.getMetadata().setGeneration(generation);
        return this;
    }

    public RolloutBuilder uid(String uid) {
        rollout.getMetadata().setUid(uid);
        return this;
    }

    /** When the API server created it (RFC 3339): the deadline counts from here. */
    public RolloutBuilder createdAt(String timestamp) {
        rollout.getMetadata().setCreationTimestamp(timestamp);
        return this;
    }

    public RolloutBuilder labels(Map<String, String> labels) {
        rollout.getMetadata().setLabels(labels);
        return this;
    }

    public RolloutBuilder ownedBy(OwnerReference owner) {
        rollout.getMetadata().setOwnerReferences(List.of(owner));
        return this;
    }

    public RolloutBuilder environment(String name) {
        spec.environmentRef = new ObjectRef(name);
        return this;
    }

    /** An embedded agent: the operator runs {@code command} in the agent container. */
    public RolloutBuilder agent(String... command) {
        spec.mode = RolloutMode.EMBEDDED;
        spec.agent = new AgentSpec();
        spec.agent.command = List.of(command);
        return this;
    }

    public RolloutBuilder maxDurationSeconds(int seconds) {
        if (spec.limits == null) spec.limits = new LimitsSpec();
        spec.limits.maxDurationSeconds = seconds;
        return this;
    }

    public RolloutBuilder restoreFrom(String snapshot) {
        spec.restoreFrom = new RestoreFromSpec();
        spec.restoreFrom.snapshotName = snapshot;
        return this;
    }

    /** Anything else the spec holds. */
    public RolloutBuilder spec(Consumer<RolloutSpec> edit) {
        edit.accept(spec);
        return this;
    }

    /** A status with this phase, as if the operator had written it (tests of later reconciles). */
    public RolloutBuilder phase(PhaseName phase) {
        RolloutStatus status = new RolloutStatus();
        status.phase = phase;
        rollout.setStatus(status);
        return this;
    }

    public Rollout build() {
        return rollout;
    }
}
