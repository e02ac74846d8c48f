package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The trace store on the real API server tier, operator side (issue 36): with the chart's {@code traceStore.enabled}
 * RBAC and the operator's store URL, the operator (as the chart's ServiceAccount) makes the trace writer account in a
 * Rollout's namespace before the pod that runs as it, which the API server's ServiceAccount admission would refuse
 * otherwise; only the sidecar mounts the store's token; and what the sidecar says of its trajectory (incomplete: the
 * store was full) reaches {@code status.trajectory}.
 */
class ChartTraceWriterOnApiServerTest {

    @Test
    void theOperatorMakesTheWriterAccountAndTheStatusSaysTheTrajectoryIsIncomplete() {
        LocalCluster cluster = SharedCluster.cluster();
        KubernetesClient admin = cluster.client();
        SharedCluster.stopOperator(); // one operator at a time on the shared API server
        String ns = SharedCluster.namespace("trace-writer");
        String home = SharedCluster.namespace("crucible-trace-system");
        ChartServiceAccount chart = ChartServiceAccount.install(admin, "crucible-trace", home,
                Map.of("watchNamespaces[0]", ns, "traceStore.enabled", "true"));
        String url = "http://crucible-trace-trace-store." + home + ".svc:8470";
        try (KubernetesClient client = chart.client(cluster);
             InProcessOperator op = new InProcessOperator(client, SharedCluster.SETTINGS.withTraceStore(url), null, o -> { }, null,
                     Set.of(ns)).start()) {
            Manifests.environment(admin, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
            Manifests.rollout(admin, ns, "calc-a0", "calc", "");
            await().atMost(Duration.ofSeconds(60)).until(() -> phase(admin, ns, "calc-a0") == PhaseName.Running);

            ServiceAccount writer = admin.serviceAccounts().inNamespace(ns).withName("crucible-trace-writer").get();
            assertThat(writer).as("the writer account the operator made").isNotNull();
            assertThat(writer.getAutomountServiceAccountToken()).isFalse();
            Pod pod = admin.pods().inNamespace(ns).withName("calc-a0-main-0").get();
            assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("crucible-trace-writer");
            assertThat(pod.getSpec().getContainers()).allSatisfy(c -> assertThat(c.getVolumeMounts().stream()
                    .anyMatch(m -> m.getMountPath().equals("/var/run/secrets/crucible-trace"))).as(c.getName())
                    .isEqualTo(c.getName().equals("verifier")));
            assertThat(pod.getSpec().getContainers().stream().filter(c -> c.getName().equals("verifier")).findFirst().orElseThrow().getEnv())
                    .anySatisfy(e -> {
                        assertThat(e.getName()).isEqualTo("CRUCIBLE_TRACE_STORE_URL");
                        assertThat(e.getValue()).isEqualTo(url);
                    });

            Manifests.verifierExits(admin, ns, "calc-a0-main-0", """
                    {"reward":1.0,"verdict":"pass","tests":{"passed":2,"failed":0,"skipped":0,"total":2},"hackFindings":[],
                    "turns":3,"phase":"Succeeded","trajectory":{"complete":false,"events":412,"problem":"trace store: 507 retentionMaxBytes"}}""");
            await().atMost(Duration.ofSeconds(30)).until(() -> phase(admin, ns, "calc-a0") == PhaseName.Succeeded);
            var status = admin.resources(Rollout.class).inNamespace(ns).withName("calc-a0").get().getStatus();
            assertThat(status.reward).as("an incomplete trajectory never changes the grade").isEqualTo(1.0);
            assertThat(status.trajectory.complete).isFalse();
            assertThat(status.trajectory.events).isEqualTo(412L);
            assertThat(status.trajectory.problem).isEqualTo("trace store: 507 retentionMaxBytes");
            assertThat(chart.forbidden.seen()).as("calls the API server refused to " + chart.user()).isEmpty();
        }
    }

    private static PhaseName phase(KubernetesClient admin, String ns, String name) {
        Rollout r = admin.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }
}
