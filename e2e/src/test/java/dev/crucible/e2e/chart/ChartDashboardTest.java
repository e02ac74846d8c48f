package dev.crucible.e2e.chart;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.metrics.QueueDepthMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The optional Grafana dashboard renders, is JSON, and queries only series the operator exports. */
class ChartDashboardTest {

    private static final Pattern CRUCIBLE_METRIC = Pattern.compile("\\b(crucible_[a-z0-9_]+)");

    @Test
    void dashboardIsOffByDefault() {
        assertThat(StrictDecoding.decode(ChartRendering.render(Map.of()))).noneMatch(o -> o.getMetadata().getName().endsWith("-dashboard"));
    }

    @Test
    void dashboardQueriesOnlyTheOperatorsMetrics() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("metrics.grafanaDashboard.enabled", "true")));
        ConfigMap cm = objects.stream().filter(o -> o instanceof ConfigMap && o.getMetadata().getName().endsWith("-dashboard"))
                .map(ConfigMap.class::cast).findFirst().orElseThrow();
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        JsonNode dashboard = new ObjectMapper().readTree(cm.getData().get("crucible-operator.json"));
        assertThat(dashboard.get("uid").asText()).isEqualTo("crucible-operator");

        Set<String> queried = new HashSet<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                Matcher m = CRUCIBLE_METRIC.matcher(target.get("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        assertThat(queried).contains("crucible_rollout_create_to_pods_milliseconds_bucket", "crucible_rollouts");
        assertThat(exported()).containsAll(queried);
    }

    /** Every series name the operator's own meters export, each meter used once. */
    private static Set<String> exported() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ControllerMetrics metrics = new ControllerMetrics(registry);
        QueueDepthMetrics sdk = new QueueDepthMetrics(registry, metrics.firstSight());
        metrics.createToPods(40);
        metrics.createToRunning(400);
        metrics.phase("ns/r", PhaseName.Running);
        metrics.timeReconcile("rollout", () -> null);
        metrics.snapshot("ready", "", 100L, 1000L);
        sdk.failedReconciliation(null, new RuntimeException(), Map.of("controller.name", "rollout"));
        Set<String> names = new HashSet<>();
        registry.scrape().lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .forEach(l -> names.add(l.split("[{ ]", 2)[0]));
        return names;
    }
}
