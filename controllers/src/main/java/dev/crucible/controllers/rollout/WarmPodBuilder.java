package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.v1alpha1.rollout.WarmPoolUse;
import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A warm-pool pod (pure): the pod a cold interactive Rollout of the environment would get, built by the same
 * {@link RolloutPodBuilder} (same containers, images, security, egress label, volumes, set-up), less what
 * belongs to one attempt: no Rollout name, deadline, turn limit or task file, and an empty claim. Those
 * arrive at claim ({@link WarmPoolClaim}) as annotations the pod's downward-API volume already projects, so
 * nothing is added to a running pod but metadata (which a real kubelet refreshes in the volume).
 */
public final class WarmPodBuilder {

    /** Attempt-specific variables a pool pod cannot hold: its sidecar reads them from the claim instead. */
    private static final Set<String> ATTEMPT_VARIABLES = Set.of("CRUCIBLE_ROLLOUT", "CRUCIBLE_DEADLINE_AT",
            "CRUCIBLE_MAX_DURATION_SECONDS", "CRUCIBLE_MAX_TURNS");
    /** The longest a Rollout may run (LimitsSpec.maxDurationSeconds' maximum): a claim only lowers activeDeadlineSeconds. */
    static final long LONGEST_ATTEMPT_SECONDS = 2_592_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RolloutPodBuilder pods;

    public WarmPodBuilder(OperatorSettings settings) {
        this.pods = new RolloutPodBuilder(settings);
    }

    /**
     * Why Rollouts of this environment cannot have a pool yet, or null when they can. GPU and multi-pod pools
     * (gang placement of pool members) are not built (issue 39, item 4).
     */
    public static String unsupported(RLEnvironment env) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        if (plan.size() != 1) {
            return "warm pools of multi-pod environments (topology) are not supported yet; Rollouts start cold";
        }
        if (plan.get(0).gpus() > 0 && !Boolean.TRUE.equals(env.getSpec().warmPool == null ? null : env.getSpec().warmPool.gpu)) {
            return "a GPU pool holds its GPUs while its pods wait: set warmPool.gpu: true to keep one; Rollouts start cold";
        }
        return null;
    }

    /**
     * Why this Rollout starts cold even when a pool pod is ready, or null when it may claim one: the pool pod
     * is an interactive pod without placement, patches or a restore, so only such a Rollout fits it.
     */
    static String coldBecause(Rollout rollout, RLEnvironment env) {
        RolloutSpec spec = rollout.getSpec();
        if (env.getSpec().warmPool == null) {
            return "the environment has no warmPool";
        }
        if (spec.warmPool == WarmPoolUse.NEVER) {
            return "spec.warmPool is never";
        }
        if (spec.mode != RolloutMode.INTERACTIVE || spec.agent != null) {
            return "an embedded Rollout brings its own agent container";
        }
        if (spec.placement != null || spec.restoreFrom != null || spec.patches != null && !spec.patches.isEmpty()) {
            return "placement, restoreFrom and patches are fixed in a cold pod";
        }
        return unsupported(env);
    }

    /** A new unclaimed pool pod with a fresh name, owned by the environment. */
    public Pod build(RLEnvironment env) {
        Pod pod = template(env);
        String hash = templateHash(pod);
        String name = RolloutLabels.truncate(env.getMetadata().getName()).replaceAll("-+$", "");
        name = (name.length() > 50 ? name.substring(0, 50) : name) + "-warm-" + HexFormat.of().formatHex(randomBytes());
        Map<String, String> labels = new LinkedHashMap<>(pod.getMetadata().getLabels());
        labels.put(WarmPoolLabels.TEMPLATE, hash);
        Map<String, String> annotations = new LinkedHashMap<>(pod.getMetadata().getAnnotations());
        annotations.put(WarmPoolLabels.ENVIRONMENT_ANNOTATION, env.getMetadata().getName());
        pod.setMetadata(new ObjectMetaBuilder(pod.getMetadata()).withName(name).withLabels(labels)
                .withAnnotations(annotations).build());
        return pod;
    }

    /** The hash of the template this environment's pool pods are built from now (changes with the environment's spec). */
    public String templateHash(RLEnvironment env) {
        return templateHash(template(env));
    }

    private static String templateHash(Pod template) {
        return SideObjectNames.hash(Serialization.asJson(template.getSpec()) + template.getMetadata().getLabels()
                + template.getMetadata().getOwnerReferences().get(0).getUid());
    }

    /** The setup's timeout: how long a pool pod's startup may take before the kubelet gives it up. */
    private static int setupSeconds(RLEnvironment env) {
        var setup = env.getSpec().setup;
        return setup == null || setup.timeoutSeconds == null ? dev.crucible.contract.SpecDefaults.SETUP_TIMEOUT_SECONDS : setup.timeoutSeconds;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[4];
        RANDOM.nextBytes(b);
        return b;
    }

    /** The pool pod without its name: a cold interactive pod of a nameless Rollout, less the attempt. */
    private Pod template(RLEnvironment env) {
        Rollout blank = new Rollout();
        blank.setMetadata(new ObjectMetaBuilder().withName("warm").withNamespace(env.getMetadata().getNamespace()).build());
        RolloutSpec spec = new RolloutSpec();
        spec.environmentRef = new ObjectRef();
        spec.environmentRef.name = env.getMetadata().getName();
        spec.mode = RolloutMode.INTERACTIVE;
        blank.setSpec(spec);
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod pod = pods.build(blank, env, plan.get(0), plan, false, null);

        Map<String, String> labels = new LinkedHashMap<>(pod.getMetadata().getLabels());
        labels.remove(RolloutLabels.ROLLOUT);
        labels.put(WarmPoolLabels.POOL, RolloutLabels.truncate(env.getMetadata().getName()));
        labels.put(WarmPoolLabels.STATE, WarmPoolLabels.FREE);
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION, "");
        annotations.put(WarmPoolLabels.CLAIM_ANNOTATION, "");
        pod.getMetadata().setLabels(labels);
        pod.getMetadata().setAnnotations(annotations);
        pod.getMetadata().setOwnerReferences(List.of(OwnerReferences.controlledBy(env)));
        // Room for any attempt after up to a TTL of waiting: the claim lowers it to the attempt's own deadline.
        long ttl = env.getSpec().warmPool == null || env.getSpec().warmPool.ttlSeconds == null
                ? 3600 : env.getSpec().warmPool.ttlSeconds;
        pod.getSpec().setActiveDeadlineSeconds(ttl + LONGEST_ATTEMPT_SECONDS + RolloutPodBuilder.DEADLINE_GRACE_SECONDS);
        for (Container c : pod.getSpec().getContainers()) {
            c.getEnv().removeIf(v -> ATTEMPT_VARIABLES.contains(v.getName()));
            if (RolloutLabels.VERIFIER_CONTAINER.equals(c.getName())) {
                c.getEnv().add(new EnvVar(WarmPoolLabels.WARM_POOL_ENV, PodLayout.CONFIG_PATH + "/" + WarmPoolLabels.CLAIM_FILE, null));
                // The sidecar listens only once it has taken a claim: ready = the attempt can start. The Rollout is
                // Running only then, so a pod lost before it sends the Rollout to a cold start, not a second run.
                c.setReadinessProbe(new ProbeBuilder().withNewHttpGet().withPath("/healthz").withNewPort("env-api").endHttpGet()
                        .withPeriodSeconds(1).withFailureThreshold(1).withTimeoutSeconds(1).build());
                // Started once setup has run ahead of the claim (the sidecar's SetupAhead writes the file): a pod is
                // claimable only then (WarmPoolClaim.ready), so a claim never waits for a setup.
                c.setStartupProbe(new ProbeBuilder().withNewExec().withCommand("test", "-e",
                                dev.crucible.contract.RunFolder.PATH + "/" + dev.crucible.contract.RunFolder.SETUP_DONE).endExec()
                        .withPeriodSeconds(1).withTimeoutSeconds(1).withFailureThreshold(setupSeconds(env) + 120).build());
            }
            if (!RolloutLabels.VERIFIER_CONTAINER.equals(c.getName())) {
                // No task where the agent's commands run (agent, agent-exec): a file mounted by subPath cannot change
                // after the claim, and the prompt reaches the trainer through the environment API's reset.
                c.getVolumeMounts().removeIf(m -> PodLayout.TASK_FILE.equals(m.getMountPath()));
                c.getEnv().removeIf(v -> "CRUCIBLE_TASK_FILE".equals(v.getName()));
            }
        }
        // The claim's file beside rollout.yaml, from the annotation the claim fills (empty until then).
        pod.getSpec().getVolumes().stream().filter(v -> PodLayout.CONFIG_VOLUME.equals(v.getName())).findFirst()
                .ifPresent(v -> {
                    List<VolumeProjection> sources = new java.util.ArrayList<>(v.getProjected().getSources());
                    sources.add(new VolumeProjectionBuilder().withNewDownwardAPI().addNewItem().withPath(WarmPoolLabels.CLAIM_FILE)
                            .withNewFieldRef().withFieldPath("metadata.annotations['" + WarmPoolLabels.CLAIM_ANNOTATION + "']")
                            .endFieldRef().endItem().endDownwardAPI().build());
                    v.getProjected().setSources(sources);
                });
        return pod;
    }
}
