package dev.crucible.probe.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What {@code probe export} learns from a Hugging Face model directory's config.json before any
 * Python runs: encoder or causal decoder, hidden-state count (layers + embeddings), width and
 * position limit. Anything it cannot export is an {@link ExportException} of one line.
 */
public record HfModelDir(Path dir, String modelType, String architecture, Kind kind, int numHiddenStates,
                         int hiddenSize, int maxPositions) {

    public enum Kind { ENCODER, DECODER }

    /** Bidirectional encoders whose AutoModel takes input_ids + attention_mask (+ token_type_ids = 0). */
    static final Set<String> ENCODERS = Set.of("bert", "roberta", "xlm-roberta", "distilbert", "electra");

    public static HfModelDir read(Path dir) throws ExportException {
        if (!Files.isDirectory(dir)) {
            throw new ExportException("model directory " + dir + " does not exist");
        }
        Path config = dir.resolve("config.json");
        if (!Files.isRegularFile(config)) {
            throw new ExportException(dir + " has no config.json: not a Hugging Face model directory");
        }
        JsonNode c;
        try {
            c = new ObjectMapper().readTree(config.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ExportException(config + " is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ExportException("cannot read " + config + ": " + e.getMessage());
        }
        String type = c.path("model_type").asText("");
        List<String> archs = new ArrayList<>();
        c.path("architectures").forEach(a -> archs.add(a.asText()));
        String arch = archs.isEmpty() ? type : archs.get(0);
        Kind kind;
        if (c.path("is_encoder_decoder").asBoolean(false)) {
            throw unsupported(arch, type, "encoder-decoder models have no single stack of hidden states; ");
        } else if (archs.stream().anyMatch(a -> a.endsWith("ForCausalLM") || a.endsWith("LMHeadModel"))) {
            kind = Kind.DECODER;
        } else if (ENCODERS.contains(type)) {
            kind = Kind.ENCODER;
        } else {
            throw unsupported(arch, type, "");
        }
        int layers = firstInt(c, "num_hidden_layers", "n_layer", "num_layers");
        int width = firstInt(c, "hidden_size", "n_embd", "dim", "d_model");
        if (layers < 1 || width < 1) {
            throw new ExportException(config + " names no layer count (num_hidden_layers / n_layer) or width "
                    + "(hidden_size / n_embd)");
        }
        int positions = firstInt(c, "max_position_embeddings", "n_positions");
        // RoBERTa-style position ids start after the padding index: two of its positions are unusable
        if (type.contains("roberta") && positions > 2) {
            positions -= 2;
        }
        if (!hasWeights(dir)) {
            throw new ExportException(dir + " has config.json but no weights (*.safetensors or pytorch_model*.bin)");
        }
        return new HfModelDir(dir, type, arch, kind, layers + 1, width, positions);
    }

    private static ExportException unsupported(String arch, String type, String why) {
        return new ExportException("unsupported architecture " + arch + " (model_type '" + type + "'): " + why
                + "export takes causal decoders (*ForCausalLM, *LMHeadModel) and the encoders "
                + ENCODERS.stream().sorted().toList());
    }

    private static int firstInt(JsonNode c, String... keys) {
        for (String k : keys) {
            if (c.path(k).isInt()) {
                return c.get(k).asInt();
            }
        }
        return 0;
    }

    private static boolean hasWeights(Path dir) throws ExportException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(n -> n.endsWith(".safetensors") || n.matches("pytorch_model.*\\.bin"));
        } catch (IOException e) {
            throw new ExportException("cannot list " + dir + ": " + e.getMessage());
        }
    }
}
