package dev.crucible.probe.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.pooling.Pooling;
import dev.crucible.probe.reward.RewardComposition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A probe model directory's {@code probe.json}: everything the server needs besides weights.
 * <pre>{ "name": "swe-band-probe",
 *   "reference": "../tiny-model",          // reference model dir, relative to this file
 *   "layer": 2, "pooling": "mean_last_half", "turnAggregation": "mean_full",
 *   "heads": ["head.json",                 // more than one: ensemble by worst-case min
 *             {"file": "h2.json", "layer": 3, "pooling": "max"}],   // per-head overrides
 *   "reward": {"type": "hard_gate", "invalidFloor": -5.0} }</pre>
 * {@code reference} may instead name the files directly, as the ProbeModel resource does (paths
 * relative to this directory or absolute; layer count and width are read from the ONNX outputs):
 * {@code "reference": {"path": "/models/model.onnx", "tokenizerPath": "/models/tokenizer.json",
 * "maxTokens": 2048}}.
 * Field names of the ProbeModel resource are accepted too: {@code weightsPath} for a head's file,
 * {@code composition} for the reward type ({@code hard-gate}, …), {@code clipMin}/{@code clipMax}.
 * This is also what a container mounts: the server starts from the directory alone.
 */
public record ProbeSpec(Path dir, String name, Path reference, ReferenceSpec inlineReference, int layer,
                        Pooling pooling, Pooling turnAggregation, List<HeadRef> heads, RewardComposition reward) {

    /** One head file and where it reads; layer and pooling default to the model's. */
    public record HeadRef(Path file, int layer, Pooling pooling) {
    }

    public static final String FILE = "probe.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public static ProbeSpec read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException("no " + FILE + " in probe model directory " + dir);
        }
        JsonNode n = JSON.readTree(file.toFile());
        try {
            if (!n.hasNonNull("layer") || !n.get("layer").canConvertToInt() || n.get("layer").asInt() < 0) {
                throw new IllegalArgumentException("field 'layer' must be an integer >= 0");
            }
            int layer = n.get("layer").asInt();
            Pooling pooling = Pooling.parse(n.path("pooling").asText("mean_full"));
            List<HeadRef> heads = new ArrayList<>();
            JsonNode headNodes = n.path("heads");
            if (!headNodes.isArray() || headNodes.isEmpty()) {
                throw new IllegalArgumentException("'heads' must list at least one head file");
            }
            for (int i = 0; i < headNodes.size(); i++) {
                JsonNode h = headNodes.get(i);
                if (h.isTextual()) {
                    heads.add(new HeadRef(dir.resolve(h.asText()), layer, pooling));
                    continue;
                }
                String headFile = h.hasNonNull("file") ? h.get("file").asText() : h.path("weightsPath").asText(null);
                if (headFile == null) {
                    throw new IllegalArgumentException("heads[" + i + "] needs 'file' (or 'weightsPath')");
                }
                heads.add(new HeadRef(dir.resolve(headFile), h.hasNonNull("layer") ? h.get("layer").asInt() : layer,
                        h.hasNonNull("pooling") ? Pooling.parse(h.get("pooling").asText()) : pooling));
            }
            JsonNode r = n.path("reward");
            String type = r.hasNonNull("type") ? r.get("type").asText() : r.path("composition").asText("hard_gate");
            RewardComposition reward = RewardComposition.of(type, number(r, "invalidFloor", null),
                    number(r, "clipLow", "clipMin"), number(r, "clipHigh", "clipMax"));
            JsonNode refNode = n.path("reference");
            ReferenceSpec inline = null;
            Path refDir;
            if (refNode.isObject()) {
                inline = ReferenceSpec.inline(dir, refNode);
                refDir = inline.dir();
            } else {
                refDir = dir.resolve(refNode.asText("reference")).normalize();
            }
            return new ProbeSpec(dir, n.path("name").asText(dir.toAbsolutePath().getFileName().toString()),
                    refDir, inline, layer, pooling,
                    Pooling.parse(n.path("turnAggregation").asText("mean_full")), heads, reward);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private static Double number(JsonNode r, String name, String alias) {
        JsonNode v = r.hasNonNull(name) ? r.get(name) : alias == null ? null : r.get(alias);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw new IllegalArgumentException("reward." + name + " must be a number");
        }
        return v.asDouble();
    }

    /** The reference model: inline files, or the directory's reference.json. */
    public ReferenceSpec referenceSpec() throws IOException {
        return inlineReference != null ? inlineReference : ReferenceSpec.read(reference);
    }

    /** Writes probe.json; {@code reference} is stored relative to {@code dir} when possible. */
    public static void write(Path dir, String name, Path reference, int layer, Pooling pooling,
                             Pooling turnAggregation, List<String> headFiles, RewardComposition reward)
            throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("name", name);
        Path absDir = dir.toAbsolutePath().normalize();
        Path absRef = reference.toAbsolutePath().normalize();
        n.put("reference", absDir.getRoot().equals(absRef.getRoot())
                ? absDir.relativize(absRef).toString() : absRef.toString());
        n.put("layer", layer);
        n.put("pooling", pooling.name());
        n.put("turnAggregation", turnAggregation.name());
        headFiles.forEach(n.putArray("heads")::add);
        n.set("reward", rewardJson(reward));
        Files.createDirectories(dir);
        JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(FILE).toFile(), n);
    }

    /**
     * Writes probe.json for a worst-case ensemble whose heads read at their own layer and pooling
     * (the model's are the first head's); head files are named relative to {@code dir}.
     */
    public static void writeEnsemble(Path dir, String name, Path reference, Pooling turnAggregation,
                                     List<HeadRef> heads, RewardComposition reward) throws IOException {
        HeadRef first = heads.get(0);
        write(dir, name, reference, first.layer(), first.pooling(), turnAggregation,
                heads.stream().map(h -> h.file().getFileName().toString()).toList(), reward);
        ObjectNode n = (ObjectNode) JSON.readTree(dir.resolve(FILE).toFile());
        var arr = n.putArray("heads");
        for (HeadRef h : heads) {
            arr.addObject().put("file", h.file().getFileName().toString()).put("layer", h.layer())
                    .put("pooling", h.pooling().name());
        }
        JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(FILE).toFile(), n);
    }

    public static ObjectNode rewardJson(RewardComposition reward) {
        ObjectNode r = JSON.createObjectNode();
        r.put("type", reward.type());
        if (reward instanceof RewardComposition.HardGate h) {
            r.put("invalidFloor", h.invalidFloor());
        } else if (reward instanceof RewardComposition.SoftGate s) {
            r.put("invalidFloor", s.invalidFloor());
            r.put("clipLow", s.clipLow());
            r.put("clipHigh", s.clipHigh());
        }
        return r;
    }
}
