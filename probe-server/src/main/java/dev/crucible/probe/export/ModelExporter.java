package dev.crucible.probe.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.python.ProbePython;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code probe export}: runs fixtures/export_hf_model.py (torch: ONNX graph, tokenizer, PyTorch's
 * parity figures; an encoder's graph fused by ONNX Runtime's transformer optimiser unless told not
 * to) with the probe Python, then writes reference.json from config.json. The HF
 * directory is named in reference.json ("huggingface") so `probe bench` times the same weights in
 * PyTorch.
 */
public final class ModelExporter {
    static final String SCRIPT = "export_hf_model.py";
    private static final long TIMEOUT_MINUTES = 60;

    /**
     * What export wrote: the model's plan, the torch / transformers versions that exported it and the
     * fused operators ("none" when the graph is the traced one).
     */
    public record Exported(HfModelDir model, Path out, String torch, String transformers, String fused) {
    }

    private ModelExporter() {
    }

    /**
     * @param maxTokens tokens per sequence the server keeps; 0 = the model's position limit, at most 2048
     * @param fuse run the transformer optimiser on an encoder's graph (decoders are never fused)
     */
    public static Exported export(Path modelDir, Path out, Path python, int maxTokens, boolean fuse) throws ExportException,
            IOException, InterruptedException {
        HfModelDir model = HfModelDir.read(modelDir.toAbsolutePath().normalize());
        if (out.toAbsolutePath().normalize().equals(model.dir())) {
            // the export rewrites tokenizer.json: the model directory's own must stay as it was
            throw new ExportException("--out must not be the model directory " + model.dir());
        }
        String noPython = ProbePython.unusable(python);
        if (noPython != null) {
            throw new ExportException(noPython);
        }
        Path script = ProbePython.script(SCRIPT);
        if (script == null) {
            throw new ExportException("probe-server/fixtures/" + SCRIPT + " not found: run from a Crucible checkout");
        }
        Files.createDirectories(out);
        Path log = Files.createTempFile("probe-export", ".log");
        try {
            List<String> cmd = new java.util.ArrayList<>(List.of(python.toString(), script.toString(), "--model",
                    model.dir().toString(), "--out", out.toAbsolutePath().toString(), "--kind",
                    model.kind().name().toLowerCase(Locale.ROOT)));
            if (!fuse) {
                cmd.add("--no-fuse");
            }
            Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
            p.getOutputStream().close();
            String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new ExportException(SCRIPT + " ran past " + TIMEOUT_MINUTES + " minutes");
            }
            if (p.exitValue() != 0) {
                throw new ExportException(lastError(Files.readString(log, StandardCharsets.UTF_8), p.exitValue()));
            }
            JsonNode shape = new ObjectMapper().readTree(stdout.substring(stdout.lastIndexOf('\n') + 1));
            if (shape.path("numHiddenStates").asInt() != model.numHiddenStates()
                    || shape.path("hiddenSize").asInt() != model.hiddenSize()) {
                throw new ExportException("config.json says " + model.numHiddenStates() + " hidden states of width "
                        + model.hiddenSize() + " but the model returned " + shape.path("numHiddenStates") + " of width "
                        + shape.path("hiddenSize"));
            }
            int tokens = maxTokens > 0 ? maxTokens : model.maxPositions() > 0 ? Math.min(model.maxPositions(), 2048) : 2048;
            writeReference(model, out, tokens, shape);
            return new Exported(model, out, shape.path("torch").asText(), shape.path("transformers").asText(),
                    fusedOperators(shape.path("fused")));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The helper's own one-line "error: …", else the last line of its stderr (a Python traceback's cause). */
    private static String lastError(String stderr, int code) {
        List<String> lines = stderr.strip().lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("error: ")) {
                return lines.get(i).substring("error: ".length());
            }
        }
        return SCRIPT + " failed (exit " + code + "): " + (lines.isEmpty() ? "no output" : lines.get(lines.size() - 1));
    }

    /** "Attention x6, BiasGelu x6, …" from the script's counts, "none" for a graph left as traced. */
    private static String fusedOperators(JsonNode counts) {
        List<String> parts = new java.util.ArrayList<>();
        counts.fields().forEachRemaining(e -> parts.add(e.getKey() + " x" + e.getValue().asInt()));
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    private static void writeReference(HfModelDir model, Path out, int maxTokens, JsonNode shape) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode r = json.createObjectNode();
        r.put("name", out.toAbsolutePath().normalize().getFileName().toString());   // HF dirs are often just "model"
        r.put("architecture", model.architecture());
        r.put("kind", model.kind().name().toLowerCase(Locale.ROOT));
        r.put("onnx", "model.onnx");
        r.put("tokenizer", "tokenizer.json");
        r.put("numHiddenStates", model.numHiddenStates());
        r.put("hiddenSize", model.hiddenSize());
        r.put("hiddenStateOutput", "hidden_state_%d");
        r.putArray("inputs").add("input_ids").add("attention_mask");
        r.put("maxTokens", maxTokens);
        r.put("huggingface", model.dir().toString());   // bench_torch.py times these weights
        r.put("exportedWith", "torch " + shape.path("torch").asText() + ", transformers "
                + shape.path("transformers").asText());
        // which graph is served: the parity figures and the bench are of this one
        r.put("fusedOperators", fusedOperators(shape.path("fused")));
        json.writerWithDefaultPrettyPrinter().writeValue(out.resolve(ReferenceSpec.FILE).toFile(), r);
    }
}
