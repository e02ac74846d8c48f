package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.e2e.cluster.InProcessOperator;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The operator's metrics scale: 200 Rollouts created and deleted leave the Prometheus series count
 * where a warm-up of 20 left it, no series names a rollout or namespace, and the create→pods histogram
 * has a 50 ms bucket and an observation per Rollout.
 */
class MetricCardinalityTest {

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    @Test
    void seriesDoNotGrowWithRollouts() {
        InProcessOperator operator = SharedCluster.operator();
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("metrics");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 10m, memory: 16Mi}");

        createRunDelete(client, ns, "warm", 20);
        List<String> before = series(operator.scrape());
        double podsObserved = count(operator.scrape(), "crucible_rollout_create_to_pods_milliseconds_count");

        createRunDelete(client, ns, "load", 200);
        String after = operator.scrape();
        List<String> seriesAfter = series(after);
        assertThat(seriesAfter).as("series after 200 more Rollouts (before: %d)", before.size()).hasSameSizeAs(before);
        assertThat(seriesAfter).noneMatch(s -> s.contains(ns) || s.contains("load-") || s.contains("warm-"));
        for (String s : seriesAfter) {
            Matcher m = LABEL.matcher(s);
            while (m.find()) {
                assertThat(m.group(1)).as("label of " + s).isNotIn("name", "namespace", "resource_name", "resource", "uid");
            }
        }
        assertThat(after).contains("crucible_rollout_create_to_pods_milliseconds_bucket{le=\"50.0\"}");
        assertThat(count(after, "crucible_rollout_create_to_pods_milliseconds_count") - podsObserved).isEqualTo(200);
    }

    private static void createRunDelete(KubernetesClient client, String ns, String prefix, int n) {
        IntStream.range(0, n).parallel().forEach(i -> Manifests.rollout(client, ns, prefix + "-" + i, "calc", ""));
        await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).until(() ->
                client.resources(Rollout.class).inNamespace(ns).list().getItems().stream()
                        .filter(r -> r.getMetadata().getName().startsWith(prefix + "-"))
                        .filter(r -> r.getStatus() != null && r.getStatus().timings != null
                                && r.getStatus().timings.createToPodsMillis != null).count() == n);
        IntStream.range(0, n).parallel().forEach(i -> client.resources(Rollout.class).inNamespace(ns).withName(prefix + "-" + i).delete());
        await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).until(() ->
                client.resources(Rollout.class).inNamespace(ns).list().getItems().isEmpty());
    }

    /** Every sample line of a Prometheus text exposition: one per series. */
    static List<String> series(String exposition) {
        return exposition.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.substring(0, l.lastIndexOf(' '))).toList();
    }

    private static double count(String exposition, String metric) {
        return exposition.lines().filter(l -> l.startsWith(metric + " ")).mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst().orElse(0);
    }
}
