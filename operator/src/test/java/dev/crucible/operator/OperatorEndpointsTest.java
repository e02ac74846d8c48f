package dev.crucible.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** Health, Prometheus metrics and configuration of the Quarkus app. */
@QuarkusTest
class OperatorEndpointsTest {

    @TestHTTPResource("/q/metrics")
    URI metrics;

    @TestHTTPResource("/q/health/live")
    URI live;

    @TestHTTPResource("/q/health/ready")
    URI ready;

    @Inject
    OperatorSettings settings;

    @Inject
    io.javaoperatorsdk.operator.api.monitoring.Metrics sdkMetrics;

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void prometheusShowsRolloutsByPhaseAndLatencies() throws Exception {
        HttpResponse<String> r = get(metrics);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("crucible_rollouts{phase=\"Running\"}")
                .contains("crucible_rollout_create_to_pods_milliseconds")
                .contains("crucible_rollout_create_to_running_milliseconds")
                .contains("crucible_rollout_create_to_pods_milliseconds_bucket{le=\"50.0\"}")
                .contains("crucible_reconcile_queue_depth");
    }

    @Test
    void theSdkGetsBoundedMetricsNotItsPerResourceBinding() {
        // The SDK's own Micrometer binding tags every meter with the resource's name and namespace.
        assertThat(sdkMetrics).isInstanceOf(dev.crucible.controllers.metrics.QueueDepthMetrics.class);
    }

    @Test
    void livenessIsUp() throws Exception {
        HttpResponse<String> r = get(live);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("UP");
    }

    /** Readiness is Crucible's check with a grace for reconnecting watches; the SDK's flapping one is off (issue 41). */
    @Test
    void readinessIsCrucibleWatchCheckNotTheSdks() throws Exception {
        HttpResponse<String> r = get(ready);
        assertThat(r.body()).contains("crucible-operator-watches").doesNotContain("Quarkus Operator SDK health check");
        // tests run without starting the operator: not ready, and saying why
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("not started");
    }

    @Test
    void unsetConfigGivesTheSameSettingsAsTheDefaultsTheOtherRuntimesUse() {
        // one place for each default: OperatorSettings' DEFAULT_* constants, named by CrucibleConfig's @WithDefault
        // but the log tails, on when deployed and off in defaults() (kwok nodes serve no logs): see DEFAULT_LOG_TAIL_BYTES
        assertThat(settings).isEqualTo(OperatorSettings.defaults().withLogTailBytes(Integer.parseInt(OperatorSettings.DEFAULT_LOG_TAIL_BYTES)));
    }

    @Test
    void settingsComeFromConfig() {
        assertThat(settings.verifierImage()).isEqualTo(CrucibleImages.sidecarVerifier()).startsWith("crucible/sidecar-verifier:");
        assertThat(settings.gpuNodeSelector()).containsEntry("nvidia.com/gpu.present", "true");
        assertThat(settings.gpuTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("nvidia.com/gpu");
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
    }
}
