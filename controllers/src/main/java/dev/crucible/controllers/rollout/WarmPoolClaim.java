package dev.crucible.controllers.rollout;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.WarmPoolLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Takes a ready pool pod for a Rollout, in one write: a JSON merge patch that carries the pod's
 * {@code resourceVersion}, so the API server applies it only to the version the claimer saw (409
 * otherwise). Two Rollouts that pick the same pod therefore never both get it: the second is refused
 * and tries the next. The patch turns the pool pod into the Rollout's pod (state claimed, the Rollout as
 * controller owner, its labels) and hands over the attempt: rollout.yaml and the claim (identity,
 * deadline, limits) in annotations the pod's downward-API volume projects to its sidecar, and an
 * {@code activeDeadlineSeconds} lowered to the attempt's own deadline. Nothing is added to the running
 * pod's spec but that deadline, which Kubernetes lets a running pod lower.
 */
public final class WarmPoolClaim {
    /** Candidates tried before starting cold: each refusal means another claimer was faster. */
    private static final int ATTEMPTS = 8;

    private WarmPoolClaim() {
    }

    /**
     * @param pods  the pods in the Rollout's pod cache (pool pods among them)
     * @param taken pods this operator claimed, or was refused, since its cache last saw them: skipped, and each
     *              claim or refusal is added (a cache a watch event behind would otherwise send every claimer
     *              of a burst to the same few pods, each try a refused write)
     * @return the claimed pod as the API server returned it, or null: start cold
     */
    static Pod claim(Rollout rollout, RLEnvironment env, MemberPlan member, String template, Stream<Pod> pods,
                     KubernetesClient client, Instant now, TakenPods taken) {
        List<Pod> ready = new ArrayList<>(pods.filter(p -> claimable(p, env, template, now) && !taken.contains(p)).toList());
        // Claimers in parallel start at different pods, so most first tries succeed.
        Collections.shuffle(ready);
        int tries = 0;
        for (Pod candidate : ready) {
            if (tries++ == ATTEMPTS) {
                break;
            }
            taken.add(candidate, now);
            try {
                return client.pods().inNamespace(candidate.getMetadata().getNamespace()).withName(candidate.getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON_MERGE), patch(rollout, member, candidate, now));
            } catch (KubernetesClientException e) {
                // 409: claimed (or changed) since the cache saw it; 404: gone; 422: its deadline can no longer hold this attempt
                if (e.getCode() != 409 && e.getCode() != 404 && e.getCode() != 422) {
                    throw e;
                }
            }
        }
        return null;
    }

    /** An unclaimed pod of this environment's current template, running and ready, within its TTL. */
    static boolean claimable(Pod p, RLEnvironment env, String template, Instant now) {
        Map<String, String> labels = p.getMetadata().getLabels();
        if (labels == null || !WarmPoolLabels.FREE.equals(labels.get(WarmPoolLabels.STATE))
                || !template.equals(labels.get(WarmPoolLabels.TEMPLATE))
                || !env.getMetadata().getNamespace().equals(p.getMetadata().getNamespace())
                || p.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        return ready(p) && !expired(p, env, now);
    }

    /**
     * Running, with every container started and the sidecar running and started (its setup done). Not the Ready condition: a pool pod's sidecar
     * becomes ready only once it has taken a claim (its environment API listens from then on, {@link WarmPodBuilder}),
     * so an unclaimed pod is never Ready. An interactive pod's agent container has no command of its own and ends at
     * once (exit 0, as in a cold pod); any container waiting (image, crash loop) or failed makes the pod unclaimable.
     */
    public static boolean ready(Pod p) {
        if (p.getStatus() == null || !"Running".equals(p.getStatus().getPhase()) || p.getStatus().getContainerStatuses() == null
                || p.getStatus().getContainerStatuses().size() < p.getSpec().getContainers().size()) {
            return false;
        }
        boolean sidecar = false;
        for (var c : p.getStatus().getContainerStatuses()) {
            var state = c.getState();
            boolean running = state != null && state.getRunning() != null;
            boolean ended = state != null && state.getTerminated() != null && Integer.valueOf(0).equals(state.getTerminated().getExitCode());
            if (!running && !(ended && !RolloutLabels.VERIFIER_CONTAINER.equals(c.getName()))) {
                return false;
            }
            // started false: its startup probe (setup run ahead of the claim) has not passed yet; kwok leaves it unset
            sidecar |= running && RolloutLabels.VERIFIER_CONTAINER.equals(c.getName()) && !Boolean.FALSE.equals(c.getStarted());
        }
        return sidecar;
    }

    /** A claimed pool pod whose sidecar has not taken the claim yet (its readiness probe has not passed). */
    public static boolean claimNotTaken(Pod p) {
        Map<String, String> labels = p.getMetadata().getLabels();
        if (labels == null || !WarmPoolLabels.CLAIMED.equals(labels.get(WarmPoolLabels.STATE))) {
            return false;
        }
        return p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                || p.getStatus().getContainerStatuses().stream().noneMatch(c -> RolloutLabels.VERIFIER_CONTAINER.equals(c.getName())
                        && Boolean.TRUE.equals(c.getReady()));
    }

    /** Waited past the pool's TTL since it was created. */
    public static boolean expired(Pod p, RLEnvironment env, Instant now) {
        var pool = env.getSpec().warmPool;
        long ttl = pool == null || pool.ttlSeconds == null ? 3600 : pool.ttlSeconds;
        String created = p.getMetadata().getCreationTimestamp();
        return created != null && !now.isBefore(Instant.parse(created).plusSeconds(ttl));
    }

    private static String patch(Rollout rollout, MemberPlan member, Pod pod, Instant now) {
        String name = rollout.getMetadata().getName();
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode meta = root.putObject("metadata");
        meta.put("resourceVersion", pod.getMetadata().getResourceVersion());
        ObjectNode labels = meta.putObject("labels");
        labels.put(WarmPoolLabels.STATE, WarmPoolLabels.CLAIMED);
        labels.put(RolloutLabels.ROLLOUT, RolloutLabels.truncate(name));
        if (rollout.getSpec().group != null && rollout.getSpec().group.id != null) {
            labels.put(RolloutLabels.GROUP, rollout.getSpec().group.id);
        }
        ObjectNode annotations = meta.putObject("annotations");
        annotations.put(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION, EnvironmentConfigMapBuilder.rolloutManifest(rollout));
        annotations.put(WarmPoolLabels.CLAIM_ANNOTATION, claim(rollout, now));
        annotations.put(WarmPoolLabels.MEMBER_ANNOTATION, member.podName(name));
        annotations.put(WarmPoolLabels.CLAIMED_AT_ANNOTATION, now.toString());
        meta.set("ownerReferences", Serialization.jsonMapper().valueToTree(List.of(OwnerReferences.controlledBy(rollout))));
        // Seconds since the pod started, plus the attempt and the kubelet's grace: the cold pod's deadline, from now.
        Instant started = pod.getStatus() != null && pod.getStatus().getStartTime() != null
                ? Instant.parse(pod.getStatus().getStartTime()) : Instant.parse(pod.getMetadata().getCreationTimestamp());
        long waited = Math.max(0, Duration.between(started, now).toSeconds() + 1);
        root.putObject("spec").put("activeDeadlineSeconds", waited + RolloutPodBuilder.maxDurationSeconds(rollout)
                + RolloutPodBuilder.DEADLINE_GRACE_SECONDS);
        return root.toString();
    }

    /** The attempt's data the pool pod could not hold: what a cold pod has in its verifier's environment. */
    static String claim(Rollout rollout, Instant now) {
        ObjectNode claim = JsonNodeFactory.instance.objectNode();
        claim.put("rollout", rollout.getMetadata().getName());
        claim.put("namespace", rollout.getMetadata().getNamespace());
        claim.put("mode", rollout.getSpec().mode == RolloutMode.INTERACTIVE ? "interactive" : "embedded");
        long max = RolloutPodBuilder.maxDurationSeconds(rollout);
        claim.put("maxDurationSeconds", max);
        Instant created = RolloutStateMachine.createdAt(rollout, now);
        claim.put("deadlineAt", created.plusSeconds(max).toString());
        if (rollout.getSpec().limits != null && rollout.getSpec().limits.maxTurns != null) {
            claim.put("maxTurns", rollout.getSpec().limits.maxTurns);
        }
        claim.put("claimedAt", now.toString());
        return claim.toString();
    }
}
