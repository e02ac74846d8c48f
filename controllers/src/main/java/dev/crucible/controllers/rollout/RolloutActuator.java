package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a decision does to the cluster: creates the members (and the objects beside them), releases a
 * gated gang, stops pods. Every write is a server-side apply of the whole intent or a create that
 * keeps what exists, so repeating an action after a crash changes nothing.
 */
final class RolloutActuator {
    private final OperatorSettings settings;
    private final RolloutPodBuilder podBuilder;
    private final Supplier<InformerEventSource<Pod, Rollout>> pods;
    private final SharedSideObjects shared = new SharedSideObjects();
    private volatile GangKindHolder gangKind;

    /** The gang scheduler found at first use (CRDs are looked up once, not per reconcile). */
    private record GangKindHolder(GangSchedulerSupport.Kind kind) {
    }

    RolloutActuator(OperatorSettings settings, Supplier<InformerEventSource<Pod, Rollout>> pods) {
        this.settings = settings;
        this.podBuilder = new RolloutPodBuilder(settings);
        this.pods = pods;
    }

    /** Creates what is missing; returns why the API server refused a pod (4xx), or null. */
    String createMembers(Rollout rollout, RLEnvironment env, RolloutDecision d, KubernetesClient client,
                         RestoreGate.Result restore) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        boolean gang = TopologyPlanner.isGang(plan);
        GangSchedulerSupport.Kind kind = gang ? gangKind(client) : null;
        // Objects beside the pods first: the pods mount the ConfigMap and the Secret, the egress policy must
        // select the untrusted agent's pod before it starts, and members resolve through the Service.
        String ns = rollout.getMetadata().getNamespace();
        List<Supplier<Void>> beside = new ArrayList<>();
        // Shared objects already written are skipped here, so a single pod's Rollout usually sends none.
        String scope = String.valueOf(env.getMetadata().getUid());
        shared.unlessRemembered(scope, EnvironmentConfigMapBuilder.build(env), o -> beside.add(write(() -> shared.apply(scope, client, o))));
        shared.unlessRemembered(scope, EnvApiTokenSecretBuilder.build(ns), o -> beside.add(write(() -> shared.createOnce(scope, client, o))));
        if (TraceStoreWiring.on(settings)) { // the pod runs as the trace writer: the API server refuses it until the account exists
            shared.unlessRemembered(scope, TraceStoreWiring.writer(ns), o -> beside.add(write(() -> shared.createOnce(scope, client, o))));
        }
        if (!gang) {
            shared.unlessRemembered(scope, EgressPolicyBuilder.shared(ns, env, settings), o -> beside.add(write(() -> shared.apply(scope, client, o))));
        } else {
            beside.add(write(() -> applyBeside(client, EgressPolicyBuilder.build(rollout, env, true, settings))));
            beside.add(write(() -> applyBeside(client, GangServiceBuilder.build(rollout, settings.rendezvousPort(), settings.verifierPort()))));
            var podGroup = kind == null ? null
                    : GangSchedulerSupport.podGroup(kind, rollout, plan.size(), TopologyPlanner.gangTimeoutSeconds(env.getSpec()));
            if (podGroup != null) {
                beside.add(write(() -> applyBeside(client, podGroup)));
            }
        }
        ParallelWrites.all(beside);
        List<Supplier<String>> members = new ArrayList<>();
        for (MemberPlan m : d.create()) {
            Pod pod = restored(podBuilder.build(rollout, env, m, plan, d.gateNew(), kind), plan.indexOf(m), restore);
            members.add(() -> createPod(rollout, pod, client));
        }
        return ParallelWrites.all(members).stream().filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    /** Returns why the API server refused the pod (4xx), or null once it exists. */
    private String createPod(Rollout rollout, Pod pod, KubernetesClient client) {
        try {
            Pod created = ServerSideApply.apply(client, pod);
            // Let the next reconcile see the pod even before the informer's watch delivers it.
            pods.get().handleRecentResourceCreate(ResourceID.fromResource(rollout), created);
            return null;
        } catch (KubernetesClientException e) {
            // 403 from a quota or a policy is the pod's problem; an RBAC refusal is the operator's (reported apart).
            if (e.getCode() == 400 || e.getCode() == 422
                    || e.getCode() == 403 && dev.crucible.controllers.status.PermissionDenied.of(e).isEmpty()) {
                return "pod " + pod.getMetadata().getName() + " was refused: "
                        + dev.crucible.controllers.status.ApiErrors.message(e);
            }
            throw e;
        }
    }

    private static Supplier<Void> write(Runnable r) {
        return () -> {
            r.run();
            return null;
        };
    }

    /**
     * Re-applies each gated member without the gate: the operator owns {@code schedulingGates}, so
     * leaving it out of the applied pod removes it, and the scheduler then sees the whole gang at once.
     */
    void ungate(Rollout rollout, RLEnvironment env, List<String> names, KubernetesClient client,
                RestoreGate.Result restore) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        GangSchedulerSupport.Kind kind = gangKind(client);
        for (MemberPlan m : plan) {
            Pod pod = restored(podBuilder.build(rollout, env, m, plan, false, kind), plan.indexOf(m), restore);
            if (names.contains(pod.getMetadata().getName())) {
                ServerSideApply.apply(client, pod);
            }
        }
    }

    void stopPods(Rollout rollout, Map<String, Pod> observed, KubernetesClient client) {
        List<Pod> stopping = PodLogTail.toStop(observed);
        // Their logs go with them: keep each container's tail with the Rollout first (issue 41's soak).
        PodLogTail.keep(rollout, stopping, settings.logTailBytes(), client);
        for (Pod p : stopping) {
            Quietly.ignoreNotFound(() -> client.pods().inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName()).delete());
        }
    }

    /**
     * A restored member runs on the node that holds its images (node-local snapshot storage), and a
     * member whose memory the runtime checkpointed names its checkpoint image: the agent imports it on
     * that node before the init container lets the agent container start, and the runtime restores it.
     */
    private static Pod restored(Pod pod, int index, RestoreGate.Result restore) {
        if (restore == null) {
            return pod;
        }
        String image = restore.checkpointImages().get(index);
        if (image != null) {
            pod.getSpec().getContainers().stream().filter(c -> RolloutLabels.AGENT_CONTAINER.equals(c.getName())).forEach(c -> {
                c.setImage(image);
                c.setImagePullPolicy("Never"); // on the node only: no registry holds it
            });
            // Restored as it was checkpointed, outside a user namespace (the gate refused those): CRIU cannot
            // restore into the pod's user namespace yet (checkpoint-restore/criu#2651).
            pod.getSpec().setHostUsers(null);
        }
        String node = restore.pins().get(index);
        if (node != null) {
            Map<String, String> selector = new java.util.TreeMap<>(pod.getSpec().getNodeSelector() == null
                    ? Map.of() : pod.getSpec().getNodeSelector());
            selector.put("kubernetes.io/hostname", node);
            pod.getSpec().setNodeSelector(selector);
        }
        return pod;
    }

    /** Applies an object beside the pods; the same intent applied again changes nothing. */
    private static void applyBeside(KubernetesClient client, HasMetadata object) {
        try {
            ServerSideApply.apply(client, object);
        } catch (KubernetesClientException e) {
            // 404: the kind is not served (e.g. a gang scheduler removed since detection): the gate still works.
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    private GangSchedulerSupport.Kind gangKind(KubernetesClient client) {
        GangKindHolder holder = gangKind;
        if (holder == null) {
            holder = new GangKindHolder(GangSchedulerSupport.detect(client));
            gangKind = holder;
        }
        return holder.kind();
    }
}
