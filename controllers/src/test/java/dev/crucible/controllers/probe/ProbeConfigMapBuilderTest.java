package dev.crucible.controllers.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** probe.json as the probe server reads it (probe-server ProbeSpec): absolute paths on the model volume. */
class ProbeConfigMapBuilderTest {

    private static JsonNode json(String text) throws Exception {
        return new ObjectMapper().readTree(text);
    }

    @Test
    void trajectoryProbeUsesTurnPoolingAndAggregation() throws Exception {
        var cm = ProbeConfigMapBuilder.build(ProbeFixtures.trajectoryProbe("swe"));
        assertThat(cm.getMetadata().getName()).isEqualTo("swe-probe-config");
        assertThat(cm.getMetadata().getNamespace()).isEqualTo("ns");
        assertThat(cm.getMetadata().getLabels()).containsEntry(ProbeNames.PROBE_MODEL, "swe");
        assertThat(cm.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("ProbeModel");
            assertThat(o.getUid()).isEqualTo("uid-swe");
            assertThat(o.getController()).isTrue();
        });
        JsonNode n = json(cm.getData().get("probe.json"));
        assertThat(n.get("name").asText()).isEqualTo("swe");
        assertThat(n.at("/reference/path").asText()).isEqualTo("/models/qwen2-tiny/model.onnx");
        assertThat(n.at("/reference/tokenizerPath").asText()).isEqualTo("/models/qwen2-tiny/tokenizer.json");
        assertThat(n.at("/reference/maxTokens").asInt()).isEqualTo(2048);
        assertThat(n.get("layer").asInt()).isEqualTo(2);
        assertThat(n.get("pooling").asText()).isEqualTo("mean_full");
        assertThat(n.get("turnAggregation").asText()).isEqualTo("max");
        assertThat(n.get("heads")).hasSize(2);
        assertThat(n.at("/heads/0/weightsPath").asText()).isEqualTo("/models/heads/linear.json");
        assertThat(n.at("/heads/0/layer").isMissingNode()).isTrue();
        assertThat(n.at("/heads/1/architecture").asText()).isEqualTo("deep-mlp");
        assertThat(n.at("/heads/1/layer").asInt()).isEqualTo(3);
        assertThat(n.at("/heads/1/pooling").asText()).isEqualTo("first_last_concat");
        assertThat(n.at("/reward/composition").asText()).isEqualTo("soft-gate");
        assertThat(n.at("/reward/invalidFloor").asDouble()).isEqualTo(-5.0);
        assertThat(n.at("/reward/clipMin").asDouble()).isEqualTo(0.05);
        assertThat(n.at("/reward/clipMax").asDouble()).isEqualTo(0.95);
    }

    @Test
    void textProbeUsesSpecPooling() throws Exception {
        JsonNode n = json(ProbeConfigMapBuilder.probeJson(ProbeFixtures.textProbe("t")));
        assertThat(n.get("pooling").asText()).isEqualTo("mean_last_half");
        assertThat(n.get("turnAggregation").asText()).isEqualTo("mean");
    }

    @Test
    void unsetFieldsFallBackToTheCrdDefaults() throws Exception {
        var p = ProbeFixtures.trajectoryProbe("d");
        p.getSpec().trajectory.turnPooling = null;
        p.getSpec().trajectory.aggregation = null;
        p.getSpec().reward = null;
        p.getSpec().referenceModel.maxTokens = null;
        p.getSpec().heads.get(0).weightsPath = "./heads/a.json";
        JsonNode n = json(ProbeConfigMapBuilder.probeJson(p));
        assertThat(n.get("pooling").asText()).isEqualTo("mean_full");
        assertThat(n.get("turnAggregation").asText()).isEqualTo("mean");
        assertThat(n.at("/reward/composition").asText()).isEqualTo("hard-gate");
        assertThat(n.at("/reference/maxTokens").isMissingNode()).isTrue();
        assertThat(n.at("/heads/0/weightsPath").asText()).isEqualTo("/models/heads/a.json");
    }

    @Test
    void renderingIsDeterministic() {
        assertThat(ProbeConfigMapBuilder.probeJson(ProbeFixtures.trajectoryProbe("x")))
                .isEqualTo(ProbeConfigMapBuilder.probeJson(ProbeFixtures.trajectoryProbe("x")));
    }
}
