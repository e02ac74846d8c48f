package dev.crucible.controllers.environment;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.environment.WarmPoolSpec;
import dev.crucible.api.v1alpha1.environment.WarmPoolStatus;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.rollout.EgressPolicyBuilder;
import dev.crucible.controllers.rollout.EnvApiTokenSecretBuilder;
import dev.crucible.controllers.rollout.EnvironmentConfigMapBuilder;
import dev.crucible.controllers.rollout.ParallelWrites;
import dev.crucible.controllers.rollout.WarmPodBuilder;
import dev.crucible.controllers.rollout.WarmPoolClaim;
import dev.crucible.controllers.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps an environment's warm pool filled: deletes unclaimed pods past their TTL or of an older template
 * (the environment's spec changed, or the operator's pod builder did), and creates missing ones at most
 * {@code refillPerSecond} a second (a token bucket per environment, so a burst of claims is served from the
 * pool and refilled at a steady pace, never all at once). The target follows demand: the claims of the last
 * minute, between min and max. While a pool pod is unschedulable no more are created (the pool cannot grow
 * into a cluster that cannot hold it, and leaves its room to cold starts), and the WarmPool condition says why.
 */
final class WarmPoolFiller {
    private static final Duration DEMAND_WINDOW = Duration.ofMinutes(1);

    private final WarmPodBuilder builder;
    private final OperatorSettings settings;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Map<String, Deque<Instant>> claims = new ConcurrentHashMap<>();
    /** Environment uid + template whose shared objects (ConfigMap, egress policy, token) were written. */
    private final Set<String> sideObjectsWritten = ConcurrentHashMap.newKeySet();

    WarmPoolFiller(OperatorSettings settings) {
        this.builder = new WarmPodBuilder(settings);
        this.settings = settings;
    }

    /** What one pass did, for status and the next wake-up (null: none needed). */
    record Result(WarmPoolStatus status, List<Condition> conditions, Duration requeue) {
    }

    /**
     * @param pods every pod of this environment's pool, claimed or not
     * @param valid false: the environment is invalid, its unclaimed pods go and none are made
     */
    Result fill(RLEnvironment env, Collection<Pod> pods, boolean valid, List<Condition> conditions, KubernetesClient client,
                Instant now) {
        String uid = env.getMetadata().getUid();
        WarmPoolSpec spec = env.getSpec().warmPool;
        String unsupported = spec == null ? null : WarmPodBuilder.unsupported(env);
        boolean wanted = spec != null && valid && unsupported == null;
        String template = wanted ? builder.templateHash(env) : "";
        int ready = 0;
        int starting = 0;
        int claimed = 0;
        String unschedulable = null;
        Deque<Instant> recent = claims.computeIfAbsent(uid, k -> new ArrayDeque<>());
        for (Pod p : pods) {
            Map<String, String> labels = p.getMetadata().getLabels();
            if (p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            if (WarmPoolLabels.CLAIMED.equals(labels.get(WarmPoolLabels.STATE))) {
                claimed++;
                noteClaim(recent, p, now);
                continue;
            }
            boolean current = wanted && template.equals(labels.get(WarmPoolLabels.TEMPLATE)) && !WarmPoolClaim.expired(p, env, now);
            if (!current) {
                deleteUnclaimed(client, p);
            } else if (WarmPoolClaim.ready(p)) {
                ready++;
            } else {
                starting++;
                unschedulable = unschedulable != null ? unschedulable : unschedulable(p);
            }
        }
        if (spec == null) {
            forget(uid);
            return new Result(null, Conditions.remove(conditions, ConditionTypes.WARM_POOL), null);
        }
        Long generation = env.getMetadata().getGeneration();
        int min = spec.min == null ? 0 : spec.min;
        int target = Math.max(min, Math.min(spec.max, recent.size()));
        WarmPoolStatus status = new WarmPoolStatus();
        status.ready = ready;
        status.starting = starting;
        status.claimed = claimed;
        status.target = wanted ? target : 0;
        if (!wanted) {
            String why = unsupported != null ? unsupported : "the environment is invalid; the pool is empty until it is fixed";
            return new Result(status, Conditions.set(conditions, ConditionTypes.WARM_POOL, false,
                    unsupported != null ? "NotSupported" : "EnvironmentInvalid", why, generation, now), null);
        }
        int missing = target - ready - starting;
        Duration requeue = null;
        if (missing > 0 && unschedulable == null) {
            Bucket bucket = buckets.computeIfAbsent(uid, k -> new Bucket());
            int allowed = bucket.take(missing, spec.refillPerSecond == null ? 5 : spec.refillPerSecond, now);
            if (allowed > 0) {
                writeSideObjects(env, template, client);
            }
            // Sent together (ParallelWrites), not one after another: under load a pod create takes hundreds of
            // milliseconds, and twenty in a row held this reconcile, and the pool's status, for seconds.
            List<java.util.function.Supplier<Pod>> creates = new java.util.ArrayList<>();
            for (int i = 0; i < allowed; i++) {
                Pod pod = builder.build(env);
                creates.add(() -> client.pods().inNamespace(env.getMetadata().getNamespace()).resource(pod).create());
            }
            ParallelWrites.all(creates);
            starting += allowed;
            status.starting = starting;
            if (allowed < missing) {
                requeue = Duration.ofMillis(Math.max(100, 1000 / Math.max(1, spec.refillPerSecond == null ? 5 : spec.refillPerSecond)));
            }
        }
        if (unschedulable != null) {
            return new Result(status, Conditions.set(conditions, ConditionTypes.WARM_POOL, false, "Unschedulable",
                    "no more pool pods are made while one cannot be placed (cold starts keep the room): " + unschedulable,
                    generation, now), Duration.ofSeconds(10));
        }
        boolean filled = ready >= target;
        // Counts stay out of the message: status.warmPool holds them, and the condition changes only with its state.
        return new Result(status, Conditions.set(conditions, ConditionTypes.WARM_POOL, filled, filled ? "Filled" : "Filling",
                filled ? "the pool holds its target of ready pods" : "pool pods are being made or started; Rollouts that find none start cold",
                generation, now), requeue != null ? requeue : recent.isEmpty() ? null : DEMAND_WINDOW);
    }

    /** On the environment's delete event (no garbage collector where the operator runs alone): its unclaimed pods go. */
    void deleted(RLEnvironment env, KubernetesClient client) {
        forget(env.getMetadata().getUid());
        client.pods().inNamespace(env.getMetadata().getNamespace())
                .withLabel(WarmPoolLabels.POOL, dev.crucible.controllers.common.RolloutLabels.truncate(env.getMetadata().getName()))
                .withLabel(WarmPoolLabels.STATE, WarmPoolLabels.FREE).delete();
    }

    private void forget(String uid) {
        buckets.remove(uid);
        claims.remove(uid);
        sideObjectsWritten.removeIf(k -> k.startsWith(uid + "/"));
    }

    /** Claims seen in the demand window, once per pod (by its claimed-at annotation). */
    private static void noteClaim(Deque<Instant> recent, Pod p, Instant now) {
        String at = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(WarmPoolLabels.CLAIMED_AT_ANNOTATION);
        synchronized (recent) {
            while (!recent.isEmpty() && recent.peekFirst().isBefore(now.minus(DEMAND_WINDOW))) {
                recent.pollFirst();
            }
            if (at != null) {
                Instant t = Instant.parse(at);
                if (t.isAfter(now.minus(DEMAND_WINDOW)) && !recent.contains(t)) {
                    recent.addLast(t);
                }
            }
        }
    }

    /**
     * A pool pod's ConfigMap, egress policy and namespace token must exist before it starts, as for a cold
     * pod; written once per environment template (the same intent again changes nothing).
     */
    private void writeSideObjects(RLEnvironment env, String template, KubernetesClient client) {
        String key = env.getMetadata().getUid() + "/" + template;
        if (sideObjectsWritten.contains(key)) {
            return;
        }
        String ns = env.getMetadata().getNamespace();
        ServerSideApply.apply(client, EnvironmentConfigMapBuilder.build(env));
        ServerSideApply.apply(client, EgressPolicyBuilder.shared(ns, env, settings));
        // Create, never read: the chart's Role may create Secrets but not get them (a get was refused on the
        // real-node tier, and the pool pod then waited for its token mount forever); 409 means it is there.
        try {
            client.secrets().inNamespace(ns).resource(EnvApiTokenSecretBuilder.build(ns)).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
        sideObjectsWritten.add(key); // only once all three are written: a refused write is tried again next reconcile
    }

    private static void deleteUnclaimed(KubernetesClient client, Pod p) {
        // Only while still unclaimed: a claim racing this delete wins or the delete does, never both.
        try {
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                    .lockResourceVersion(p.getMetadata().getResourceVersion()).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409 && e.getCode() != 404) {
                throw e;
            }
        }
    }

    private static String unschedulable(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) {
            return null;
        }
        for (PodCondition c : p.getStatus().getConditions()) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())) {
                return "pod " + p.getMetadata().getName() + ": " + c.getMessage();
            }
        }
        return null;
    }

    /** Tokens for pod creations: refillPerSecond a second, at most one second's worth saved up. */
    private static final class Bucket {
        private double tokens = -1;
        private Instant last;

        synchronized int take(int wanted, int perSecond, Instant now) {
            if (tokens < 0) {
                tokens = perSecond;
            } else {
                tokens = Math.min(perSecond, tokens + perSecond * Duration.between(last, now).toMillis() / 1000.0);
            }
            last = now;
            int n = Math.min(wanted, (int) tokens);
            tokens -= n;
            return n;
        }
    }
}
