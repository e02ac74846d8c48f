package dev.crucible.api.v1alpha1;

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
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An RLEnvironment built in code (tests, tools); manifests are the usual way in. The API types are plain
 * public-field classes (the CRD generator reads them so), which the builder generators cannot read, hence
 * this small one: the common fields by name, anything else through {@link #spec(Consumer)}.
 */
public final class RLEnvironmentBuilder {
    private final RLEnvironment env = new RLEnvironment();
    private final RLEnvironmentSpec spec = new RLEnvironmentSpec();

    private RLEnvironmentBuilder(String namespace, String name) {
        env.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        spec.workspace = new WorkspaceSpec();
        env.setSpec(spec);
    }

    public static RLEnvironmentBuilder named(String namespace, String name) {
        return new RLEnvironmentBuilder(namespace, name);
    }

    /** As the API server would have set it (tests of observedGeneration); never set on an object to apply. */
    public RLEnvironmentBuilder generation(long generation) {
        env.getMetadata().setGeneration(generation);
        return this;
    }

    public RLEnvironmentBuilder uid(String uid) {
        env.getMetadata().setUid(uid);
        return this;
    }

    public RLEnvironmentBuilder image(String image) {
        spec.image = image;
        return this;
    }

    public RLEnvironmentBuilder prompt(String prompt) {
        spec.task = new TaskSpec();
        spec.task.prompt = prompt;
        return this;
    }

    public RLEnvironmentBuilder verifier(VerifierType type, String command, String... protectedPaths) {
        spec.verifier = new VerifierSpec();
        spec.verifier.type = type;
        spec.verifier.command = command;
        spec.verifier.protectedPaths = protectedPaths.length == 0 ? null : List.of(protectedPaths);
        return this;
    }

    public RLEnvironmentBuilder resources(String cpu, String memory) {
        if (spec.resources == null) spec.resources = new ResourcesSpec();
        spec.resources.cpu = cpu;
        spec.resources.memory = memory;
        return this;
    }

    public RLEnvironmentBuilder gpus(int gpus, String model) {
        if (spec.resources == null) spec.resources = new ResourcesSpec();
        spec.resources.gpus = gpus;
        spec.resources.gpuModel = model;
        return this;
    }

    /** The sandbox: a RuntimeClass and, when {@code allow} names any, egress only to those {@code cidr[:port]}. */
    public RLEnvironmentBuilder sandbox(String runtimeClassName, String... allow) {
        spec.sandbox = new SandboxSpec();
        spec.sandbox.runtimeClassName = runtimeClassName;
        if (allow.length > 0) {
            spec.sandbox.network = new NetworkSpec();
            spec.sandbox.network.egress = EgressMode.ALLOW_LIST;
            spec.sandbox.network.allow = List.of(allow);
        }
        return this;
    }

    /** One more role of a multi-node topology (a gang), placed within {@code gangTimeoutSeconds}. */
    public RLEnvironmentBuilder role(String name, int replicas, int gpusPerReplica, int gangTimeoutSeconds) {
        if (spec.topology == null) {
            spec.topology = new TopologySpec();
            spec.topology.roles = new ArrayList<>();
        }
        spec.topology.gangTimeoutSeconds = gangTimeoutSeconds;
        RoleSpec role = new RoleSpec();
        role.name = name;
        role.replicas = replicas;
        role.gpusPerReplica = gpusPerReplica;
        spec.topology.roles.add(role);
        return this;
    }

    /** Anything else the spec holds. */
    public RLEnvironmentBuilder spec(Consumer<RLEnvironmentSpec> edit) {
        edit.accept(spec);
        return this;
    }

    public RLEnvironment build() {
        return env;
    }
}
