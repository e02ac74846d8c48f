package dev.crucible.e2e.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.metrics.WarmPoolMetrics;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Warm pools on the kwok tier (issue 39, items 3 and 4): the pool's meters and `kubectl get` columns, and GPU pools
 * (off unless asked; when on, pool pods placed as cold GPU pods; gang pools keep no member at all).
 */
class WarmPoolMetricsAndGpuTest {

    static KubernetesClient client;
    static MeterRegistry registry;

    @BeforeAll
    static void operator() {
        registry = SharedCluster.operator().metrics().registry();
        client = SharedCluster.client();
    }

    @Test
    void thePoolShowsInMetricsAndColumnsAndClaimsCountWarmAndCold() throws Exception {
        String ns = SharedCluster.namespace("warm-metrics");
        double warm0 = claims("warm");
        double cold0 = claims("cold");
        RLEnvironment env = WarmPoolFixtures.environment(client, ns, "calc", 1, 1);
        WarmPoolFixtures.awaitReady(client, ns, "calc", 1);
        // summed over every pool of the operator (other classes' pools may still exist): this one's pod is among them
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(pods("ready")).isGreaterThanOrEqualTo(1);
            assertThat(registry.get(WarmPoolMetrics.TARGET).gauge().value()).isGreaterThanOrEqualTo(1);
        });
        // kubectl get rlenv -o wide: the columns are the API server's Table of the CRD's printer columns
        String table = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder()
                .uri(client.getMasterUrl() + "apis/crucible.dev/v1alpha1/namespaces/" + ns + "/rlenvironments/calc?includeObject=None")
                .header("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1").build(), String.class).get().body();
        assertThat(table).contains("\"name\":\"Pool-Ready\"").contains("\"name\":\"Pool-Starting\"")
                .contains("\"name\":\"Pool-Claimed\"").contains("\"name\":\"Pool-Target\"");

        WarmPoolFixtures.rollout(client, ns, "calc-a0", "calc", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "calc-a0") == PhaseName.Running);
        assertThat(WarmPoolFixtures.get(client, ns, "calc-a0").getStatus().start).isEqualTo("Warm");
        assertThat(claims("warm") - warm0).isEqualTo(1);
        assertThat(claims("cold") - cold0).isZero();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(pods("claimed")).isGreaterThanOrEqualTo(1));

        WarmPoolFixtures.environment(client, ns, "empty", 0, 1); // no ready pod: the Rollout falls back to a cold start
        WarmPoolFixtures.rollout(client, ns, "empty-a0", "empty", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "empty-a0") == PhaseName.Running);
        assertThat(WarmPoolFixtures.get(client, ns, "empty-a0").getStatus().start).isEqualTo("Cold");
        assertThat(claims("cold") - cold0).isEqualTo(1);
        assertThat(claims("warm") - warm0).isEqualTo(1);
        WarmPoolFixtures.rollout(client, ns, "calc-never", "calc", "warmPool: never");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "calc-never") == PhaseName.Running);
        assertThat(claims("warm") - warm0 + claims("cold") - cold0).as("an opted-out Rollout is no claim").isEqualTo(2);
        assertThat(registry.getMeters()).filteredOn(m -> m.getId().getName().startsWith("crucible.warmpool"))
                .allSatisfy(m -> assertThat(m.getId().getTags()).noneMatch(t -> t.getKey().equals("namespace")));
        client.resource(env).delete();
    }

    @Test
    void aGpuPoolIsOffUnlessAskedAndItsPodsArePlacedAsColdOnes() {
        String ns = SharedCluster.namespace("warm-gpu");
        RLEnvironment off = Manifests.environment(client, ns, "kernel-off", """
                resources: {cpu: "1", memory: 1Gi, gpus: 1, gpuModel: NVIDIA-H100-80GB-HBM3}
                warmPool: {min: 1, max: 1, refillPerSecond: 20}""");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(condition(ns, "kernel-off")).isNotNull()
                .satisfies(c -> {
                    assertThat(c.getReason()).isEqualTo("NotSupported");
                    assertThat(c.getMessage()).contains("warmPool.gpu");
                }));
        assertThat(WarmPoolFixtures.free(client, ns, "kernel-off")).as("no GPU held unless asked").isEmpty();

        // a gang (two 8-GPU members): all or nothing, and pools of gangs are not built, so nothing
        RLEnvironment gang = Manifests.environment(client, ns, "gang", """
                resources: {cpu: "4", memory: 16Gi}
                topology:
                  gangTimeoutSeconds: 120
                  roles: [{name: trainer, replicas: 2, gpusPerReplica: 8}]
                warmPool: {min: 1, max: 1, gpu: true}""");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(condition(ns, "gang")).isNotNull()
                .satisfies(c -> assertThat(c.getReason()).isEqualTo("NotSupported")));
        assertThat(client.pods().inNamespace(ns).withLabel("crucible.dev/warm-pool", "gang").list().getItems())
                .as("no member of a gang's pool alone").isEmpty();

        RLEnvironment on = Manifests.environment(client, ns, "kernel", """
                resources: {cpu: "1", memory: 1Gi, gpus: 1, gpuModel: NVIDIA-H100-80GB-HBM3}
                warmPool: {min: 1, max: 1, gpu: true, refillPerSecond: 20}""");
        Pod pool = WarmPoolFixtures.awaitReady(client, ns, "kernel", 1).get(0);
        assertThat(pool.getSpec().getNodeName()).as("on a GPU node, as a cold GPU pod").startsWith("gpu-");
        assertThat(pool.getSpec().getContainers()).anySatisfy(c ->
                assertThat(c.getResources().getLimits().get("nvidia.com/gpu").getAmount()).isEqualTo("1"));
        WarmPoolFixtures.rollout(client, ns, "kernel-a0", "kernel", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "kernel-a0") == PhaseName.Running);
        var r = WarmPoolFixtures.get(client, ns, "kernel-a0");
        assertThat(r.getStatus().start).isEqualTo("Warm");
        assertThat(r.getStatus().members.get(0).pod).isEqualTo(pool.getMetadata().getName());
        assertThat(r.getStatus().members.get(0).gpus).isEqualTo(1);

        // the GPUs go back for the other classes of this JVM (gang tests use whole nodes)
        client.resource(r).delete();
        for (RLEnvironment e : new RLEnvironment[] {off, gang, on}) {
            client.resource(e).delete();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());
    }

    private static io.fabric8.kubernetes.api.model.Condition condition(String ns, String env) {
        RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName(env).get();
        return e == null || e.getStatus() == null || e.getStatus().conditions == null ? null
                : e.getStatus().conditions.stream().filter(c -> "WarmPool".equals(c.getType())).findFirst().orElse(null);
    }

    private static double pods(String state) {
        return registry.get(WarmPoolMetrics.PODS).tag("state", state).gauge().value();
    }

    private static double claims(String result) {
        return registry.get(WarmPoolMetrics.CLAIMS).tag("result", result).counter().count();
    }
}
