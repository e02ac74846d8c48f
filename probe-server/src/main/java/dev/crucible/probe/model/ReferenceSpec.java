package dev.crucible.probe.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A reference model directory: {@code reference.json} naming the ONNX file (one output per hidden
 * state, named by {@code hiddenStateOutput} with %d = 0 for embeddings … numHiddenStates-1 for the
 * last layer), the tokenizer.json, and the maximum tokens per sequence.
 */
public record ReferenceSpec(Path dir, String name, Path onnx, Path tokenizer, int numHiddenStates,
                            int hiddenSize, String hiddenStateOutput, int maxTokens) {

    public static final String FILE = "reference.json";

    public static ReferenceSpec read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException("no " + FILE + " in reference model directory " + dir);
        }
        JsonNode n = new ObjectMapper().readTree(file.toFile());
        ReferenceSpec spec = new ReferenceSpec(dir, n.path("name").asText(dir.getFileName().toString()),
                dir.resolve(n.path("onnx").asText("model.onnx")),
                dir.resolve(n.path("tokenizer").asText("tokenizer.json")),
                n.path("numHiddenStates").asInt(0), n.path("hiddenSize").asInt(0),
                n.path("hiddenStateOutput").asText("hidden_state_%d"), n.path("maxTokens").asInt(512));
        if (spec.numHiddenStates < 1 || spec.hiddenSize < 1 || spec.maxTokens < 1) {
            throw new IOException(file + ": numHiddenStates, hiddenSize and maxTokens must be >= 1");
        }
        for (Path p : new Path[] {spec.onnx, spec.tokenizer}) {
            if (!Files.isRegularFile(p)) {
                throw new IOException(file + " names " + p + ", which does not exist");
            }
        }
        return spec;
    }

    /**
     * From a ProbeModel-style object {path, tokenizerPath, maxTokens[, numHiddenStates, hiddenSize,
     * hiddenStateOutput]} with paths relative to {@code base}; 0 counts are inferred when loading.
     */
    public static ReferenceSpec inline(Path base, JsonNode n) throws IOException {
        String onnx = n.hasNonNull("path") ? n.get("path").asText() : n.path("onnx").asText(null);
        String tok = n.hasNonNull("tokenizerPath") ? n.get("tokenizerPath").asText() : n.path("tokenizer").asText(null);
        if (onnx == null || tok == null) {
            throw new IOException("reference needs 'path' (the ONNX file) and 'tokenizerPath'");
        }
        Path onnxPath = base.resolve(onnx).normalize();
        ReferenceSpec spec = new ReferenceSpec(onnxPath.getParent(), n.path("name").asText(onnxPath.getFileName().toString()),
                onnxPath, base.resolve(tok).normalize(), n.path("numHiddenStates").asInt(0), n.path("hiddenSize").asInt(0),
                n.path("hiddenStateOutput").asText("hidden_state_%d"), n.path("maxTokens").asInt(2048));
        for (Path p : new Path[] {spec.onnx, spec.tokenizer}) {
            if (!Files.isRegularFile(p)) {
                throw new IOException("reference names " + p + ", which does not exist");
            }
        }
        return spec;
    }

    /** The same spec with the layer count and width the loaded model reports. */
    public ReferenceSpec withShape(int states, int hidden) {
        return new ReferenceSpec(dir, name, onnx, tokenizer, states, hidden, hiddenStateOutput, maxTokens);
    }

    public String outputName(int layer) {
        if (layer < 0 || layer >= numHiddenStates) {
            throw new IllegalArgumentException("layer " + layer + " is outside 0.." + (numHiddenStates - 1));
        }
        return String.format(hiddenStateOutput, layer);
    }
}
