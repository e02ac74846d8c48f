package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.model.TextTokenizer;
import dev.crucible.probe.pooling.Pooling;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java pipeline (DJL tokenizer → ONNX Runtime → pooling) against PyTorch's pooled activations
 * for the same texts, every layer and every pooling, run one by one and as one padded batch.
 */
class ParityWithPyTorchTest {
    private static final double TOLERANCE = 1e-4;
    static ReferenceModel model;
    static TextTokenizer tokenizer;
    static JsonNode parity;

    @BeforeAll
    static void load() throws Exception {
        ReferenceSpec spec = ReferenceSpec.read(TinyModel.dir());
        model = new ReferenceModel(spec, Device.CPU, 1);
        tokenizer = new TextTokenizer(spec.tokenizer(), spec.maxTokens());
        parity = new ObjectMapper().readTree(TinyModel.dir().resolve("parity.json").toFile()).get("items");
    }

    @AfterAll
    static void close() throws Exception {
        tokenizer.close();
        model.close();
    }

    @Test
    void tokenIdsMatchTransformers() {
        for (JsonNode item : parity) {
            long[] expected = new long[item.get("ids").size()];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = item.get("ids").get(i).asLong();
            }
            assertThat(tokenizer.encode(item.get("text").asText())).as(item.get("text").asText())
                    .containsExactly(expected);
        }
    }

    @Test
    void longTextsKeepTheirLastTokens() throws Exception {
        String text = parity.get(4).get("text").asText();
        long[] all = tokenizer.encode(text);
        try (TextTokenizer four = new TextTokenizer(model.spec().tokenizer(), 4)) {
            assertThat(four.encode(text)).containsExactly(java.util.Arrays.copyOfRange(all, all.length - 4, all.length));
        }
    }

    @Test
    void pooledActivationsMatchPyTorchOneByOne() throws Exception {
        int layers = model.spec().numHiddenStates();
        for (JsonNode item : parity) {
            long[] ids = tokenizer.encode(item.get("text").asText());
            Map<Integer, float[][][]> states = model.forward(List.of(ids), allLayers(layers));
            compare(item, states, 0);
        }
    }

    @Test
    void pooledActivationsMatchPyTorchInOnePaddedBatch() throws Exception {
        int layers = model.spec().numHiddenStates();
        List<long[]> batch = new ArrayList<>();
        for (JsonNode item : parity) {
            batch.add(tokenizer.encode(item.get("text").asText()));
        }
        Map<Integer, float[][][]> states = model.forward(batch, allLayers(layers));
        for (int b = 0; b < parity.size(); b++) {
            compare(parity.get(b), states, b);
        }
    }

    @Test
    void theSevenPoolingsDifferFromEachOther() throws Exception {
        // the 81-token text: longer than 50 so mean_last_50 differs from mean_full
        long[] ids = tokenizer.encode(parity.get(4).get("text").asText());
        float[][] h = model.forward(List.of(ids), 2).get(2)[0];
        List<float[]> pooled = new ArrayList<>();
        for (String p : Pooling.STANDARD) {
            pooled.add(Pooling.parse(p).pool(h));
        }
        for (int i = 0; i < pooled.size(); i++) {
            for (int j = i + 1; j < pooled.size(); j++) {
                assertThat(pooled.get(i)).as(Pooling.STANDARD.get(i) + " vs " + Pooling.STANDARD.get(j))
                        .isNotEqualTo(pooled.get(j));
            }
        }
    }

    private static int[] allLayers(int n) {
        int[] l = new int[n];
        for (int i = 0; i < n; i++) {
            l[i] = i;
        }
        return l;
    }

    private static void compare(JsonNode item, Map<Integer, float[][][]> states, int b) {
        Iterator<Map.Entry<String, JsonNode>> layers = item.get("pooled").fields();
        int checked = 0;
        while (layers.hasNext()) {
            Map.Entry<String, JsonNode> layer = layers.next();
            float[][] h = states.get(Integer.parseInt(layer.getKey()))[b];
            Iterator<Map.Entry<String, JsonNode>> pools = layer.getValue().fields();
            while (pools.hasNext()) {
                Map.Entry<String, JsonNode> p = pools.next();
                float[] actual = Pooling.parse(p.getKey()).pool(h);
                JsonNode expected = p.getValue();
                assertThat(actual).hasSize(expected.size());
                double maxDiff = 0;
                for (int i = 0; i < actual.length; i++) {
                    maxDiff = Math.max(maxDiff, Math.abs(actual[i] - expected.get(i).asDouble()));
                }
                assertThat(maxDiff).as("layer %s pooling %s text %s", layer.getKey(), p.getKey(),
                        item.get("text").asText()).isLessThan(TOLERANCE);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(5 * 7);
    }
}
