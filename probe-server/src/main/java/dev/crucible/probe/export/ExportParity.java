package dev.crucible.probe.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.model.TextTokenizer;
import dev.crucible.probe.pooling.Pooling;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The served pipeline (DJL tokenizer, ONNX Runtime, Java pooling) against PyTorch's pooled hidden
 * states in parity.json (written by the export): every text, hidden state and pooling, once one
 * sequence at a time and once as one right-padded batch, as the server's dynamic batcher runs them.
 */
public final class ExportParity {
    public static final String FILE = "parity.json";

    /** maxDiff over both runs; tokenMismatches names texts whose ids differ from transformers'. */
    public record Result(int texts, int hiddenStates, int poolings, double maxOneByOne, double maxBatched,
                         List<String> tokenMismatches) {
        public double maxDiff() {
            return Math.max(maxOneByOne, maxBatched);
        }

        public String line(double tolerance) {
            return String.format("parity: %d texts x %d hidden states x %d poolings: max |java - torch| = %.2e "
                            + "one by one, %.2e in one padded batch (tolerance %.0e)%s", texts, hiddenStates, poolings,
                    maxOneByOne, maxBatched, tolerance,
                    tokenMismatches.isEmpty() ? "; token ids identical" : "; token ids DIFFER for " + tokenMismatches);
        }

        public boolean passes(double tolerance) {
            return tokenMismatches.isEmpty() && maxDiff() <= tolerance;
        }
    }

    private ExportParity() {
    }

    public static Result check(Path referenceDir, int threads) throws Exception {
        ReferenceSpec spec = ReferenceSpec.read(referenceDir);
        JsonNode items = new ObjectMapper().readTree(referenceDir.resolve(FILE).toFile()).get("items");
        List<long[]> sequences = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        int[] layers = new int[spec.numHiddenStates()];
        for (int l = 0; l < layers.length; l++) {
            layers[l] = l;
        }
        double oneByOne = 0;
        double batched;
        int poolings = 0;
        try (ReferenceModel model = new ReferenceModel(spec, Device.CPU, threads);
             TextTokenizer tokenizer = new TextTokenizer(spec.tokenizer(), spec.maxTokens())) {
            for (JsonNode item : items) {
                long[] ids = tokenizer.encode(item.get("text").asText());
                long[] expected = new long[item.get("ids").size()];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = item.get("ids").get(i).asLong();
                }
                if (!java.util.Arrays.equals(ids, expected)) {
                    mismatches.add(abbreviate(item.get("text").asText()));
                }
                // PyTorch's ids, so a tokenizer difference is reported once, not as every activation
                sequences.add(expected);
                oneByOne = Math.max(oneByOne, maxDiff(model.forward(List.of(expected), layers), 0, item));
                poolings = item.get("pooled").get("0").size();
            }
            Map<Integer, float[][][]> all = model.forward(sequences, layers);
            batched = 0;
            for (int b = 0; b < items.size(); b++) {
                batched = Math.max(batched, maxDiff(all, b, items.get(b)));
            }
        }
        return new Result(items.size(), layers.length, poolings, oneByOne, batched, mismatches);
    }

    private static double maxDiff(Map<Integer, float[][][]> states, int b, JsonNode item) {
        double max = 0;
        for (Iterator<Map.Entry<String, JsonNode>> layers = item.get("pooled").fields(); layers.hasNext(); ) {
            Map.Entry<String, JsonNode> layer = layers.next();
            float[][] h = states.get(Integer.parseInt(layer.getKey()))[b];
            for (Iterator<Map.Entry<String, JsonNode>> ps = layer.getValue().fields(); ps.hasNext(); ) {
                Map.Entry<String, JsonNode> p = ps.next();
                float[] java = Pooling.parse(p.getKey()).pool(h);
                JsonNode torch = p.getValue();
                if (torch.size() != java.length) {
                    return Double.POSITIVE_INFINITY;
                }
                for (int i = 0; i < java.length; i++) {
                    max = Math.max(max, Math.abs(java[i] - torch.get(i).asDouble()));
                }
            }
        }
        return max;
    }

    private static String abbreviate(String text) {
        String one = text.replace("\n", "\\n");
        return one.length() <= 40 ? "'" + one + "'" : "'" + one.substring(0, 40) + "…'";
    }
}
