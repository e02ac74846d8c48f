package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.WarmPoolMetrics;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Rollout's side of the warm pool: before creating its pod, a Rollout that fits the pool
 * ({@link WarmPodBuilder#coldBecause}) claims a ready pool pod ({@link WarmPoolClaim}); with none, it starts
 * cold as before. A claimed pod is found again by its member annotation, so the state machine sees it under
 * the member name it plans.
 */
final class WarmStart {
    static final String WARM = "Warm";
    static final String COLD = "Cold";

    private final WarmPodBuilder builder;
    private final Supplier<InformerEventSource<Pod, Rollout>> pods;
    /** The template hash per environment uid and generation: building it costs a pod's serialization. */
    private final Map<String, String> templates = new ConcurrentHashMap<>();
    private final TakenPods taken = new TakenPods();
    private final WarmPoolMetrics metrics;

    WarmStart(OperatorSettings settings, Supplier<InformerEventSource<Pod, Rollout>> pods, WarmPoolMetrics metrics) {
        this.builder = new WarmPodBuilder(settings);
        this.pods = pods;
        this.metrics = metrics;
    }

    /** The claimed pod, or null: the Rollout does not fit the pool, or no pool pod was ready. */
    Pod claim(Rollout rollout, RLEnvironment env, RolloutDecision d, KubernetesClient client, Instant now) {
        if (d.create().size() != 1 || WarmPodBuilder.coldBecause(rollout, env) != null) {
            return null;
        }
        if (rollout.getStatus() != null && WARM.equals(rollout.getStatus().start)) {
            return null; // its warm pod was lost before the attempt started: one cold start, never a second claim
        }
        String key = env.getMetadata().getUid() + "/" + env.getMetadata().getGeneration();
        String template = templates.computeIfAbsent(key, k -> builder.templateHash(env));
        if (templates.size() > 10_000) {
            templates.clear();
        }
        String ns = rollout.getMetadata().getNamespace();
        Pod claimed = WarmPoolClaim.claim(rollout, env, d.create().get(0), template,
                pods.get().list(ns, p -> p.getMetadata().getLabels() != null
                        && p.getMetadata().getLabels().containsKey(WarmPoolLabels.POOL)), client, now, taken);
        // a Rollout that fitted the pool: a warm hit, or a cold fallback (the pool had no ready pod for it)
        metrics.claim(claimed != null);
        if (claimed != null) {
            // The next reconcile sees the claimed pod as the Rollout's before the watch delivers it.
            pods.get().handleRecentResourceUpdate(ResourceID.fromResource(rollout), claimed, claimed);
        }
        return claimed;
    }

    /** The member name a pod stands for: a claimed pool pod's member annotation, else its own name. */
    static String memberName(Pod p) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        String member = a == null ? null : a.get(WarmPoolLabels.MEMBER_ANNOTATION);
        return member != null ? member : p.getMetadata().getName();
    }

    /** Warm when the Rollout's pod came from the pool, Cold when it was created for it; null before any pod. */
    static String start(Map<String, Pod> observed, String previous) {
        if (observed.isEmpty()) {
            return previous;
        }
        boolean warm = observed.values().stream().anyMatch(p -> p.getMetadata().getLabels() != null
                && WarmPoolLabels.CLAIMED.equals(p.getMetadata().getLabels().get(WarmPoolLabels.STATE)));
        return warm ? WARM : COLD;
    }
}
