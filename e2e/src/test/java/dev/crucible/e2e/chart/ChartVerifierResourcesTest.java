package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.StringReader;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** rollouts.verifier.resources reach the operator as requests→requests and limits→limits. */
class ChartVerifierResourcesTest {

    static Properties operatorConfig(Map<String, Object> values) throws Exception {
        String text = StrictDecoding.decode(ChartRendering.render(values)).stream().filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast).filter(c -> c.getData() != null && c.getData().containsKey("application.properties"))
                .findFirst().orElseThrow().getData().get("application.properties");
        Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }

    @Test
    void defaultsMapRequestsToRequestsAndLimitsToLimits() throws Exception {
        Properties p = operatorConfig(Map.of());
        // values.yaml: requests {cpu: 100m, memory: 128Mi}, limits {memory: 512Mi}
        assertThat(p.getProperty("crucible.verifier.cpu")).isEqualTo("100m");
        assertThat(p.getProperty("crucible.verifier.memory")).isEqualTo("128Mi");
        assertThat(p.getProperty("crucible.verifier.memory-limit")).isEqualTo("512Mi");
        assertThat(p.getProperty("crucible.verifier.cpu-limit")).as("no CPU limit: grading is not throttled to the request").isNull();
    }

    @Test
    void aCpuLimitIsPassedOnAsALimit() throws Exception {
        Properties p = operatorConfig(Map.of("rollouts.verifier.resources.limits.cpu", "2",
                "rollouts.verifier.resources.requests.cpu", "250m"));
        assertThat(p.getProperty("crucible.verifier.cpu")).isEqualTo("250m");
        assertThat(p.getProperty("crucible.verifier.cpu-limit")).isEqualTo("2");
    }
}
