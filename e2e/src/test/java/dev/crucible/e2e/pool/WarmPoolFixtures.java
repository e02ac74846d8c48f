package dev.crucible.e2e.pool;

import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.e2e.Manifests;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/** Environments with a warm pool, interactive Rollouts (what a pool serves) and looks at the pool's pods. */
final class WarmPoolFixtures {

    private WarmPoolFixtures() {
    }

    static RLEnvironment environment(KubernetesClient client, String ns, String name, int min, int max) {
        return Manifests.environment(client, ns, name, """
                resources: {cpu: 500m, memory: 512Mi}
                warmPool: {min: %d, max: %d, refillPerSecond: 20}""".formatted(min, max));
    }

    static Rollout rollout(KubernetesClient client, String ns, String name, String environment, String extraSpec) {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  environmentRef:
                    name: %s
                  mode: interactive
                %s
                """.formatted(name, ns, environment, extraSpec.indent(2));
        return client.resource(client.getKubernetesSerialization().unmarshal(yaml, Rollout.class)).create();
    }

    static Rollout get(KubernetesClient client, String ns, String name) {
        return client.resources(Rollout.class).inNamespace(ns).withName(name).get();
    }

    static PhaseName phase(KubernetesClient client, String ns, String name) {
        Rollout r = get(client, ns, name);
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    /** The environment's unclaimed pool pods that are not being deleted. */
    static List<Pod> free(KubernetesClient client, String ns, String env) {
        return client.pods().inNamespace(ns).withLabel("crucible.dev/warm-pool", env).withLabel("crucible.dev/warm-state", "free")
                .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    /** The ready count the environment's status reports. */
    static int readyCount(KubernetesClient client, String ns, String env) {
        RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName(env).get();
        return e == null || e.getStatus() == null || e.getStatus().warmPool == null || e.getStatus().warmPool.ready == null
                ? -1 : e.getStatus().warmPool.ready;
    }

    static List<Pod> awaitReady(KubernetesClient client, String ns, String env, int n) {
        await().atMost(Duration.ofSeconds(45)).until(() -> readyCount(client, ns, env) == n && free(client, ns, env).size() == n);
        return free(client, ns, env);
    }
}
