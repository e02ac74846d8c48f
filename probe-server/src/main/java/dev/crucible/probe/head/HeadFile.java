package dev.crucible.probe.head;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes a head as JSON, a format a person can write by hand or from PyTorch:
 * <pre>{ "name": "h0", "architecture": "mlp", "inputDim": 64,
 *   "featureMean": [..64], "featureScale": [..64],
 *   "layers": [ {"weight": [[..64] x 64], "bias": [..64]}, {"weight": [[..64]], "bias": [b]} ] }</pre>
 * Layers are applied in order with ReLU between them; weight is [out][in] like torch.nn.Linear.
 */
public final class HeadFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HeadFile() {
    }

    public static ProbeHead read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        try {
            return fromJson(root, file.getFileName().toString());
        } catch (IllegalArgumentException e) {
            throw new IOException("bad head file " + file + ": " + e.getMessage(), e);
        }
    }

    public static ProbeHead fromJson(JsonNode root, String fallbackName) {
        String name = root.path("name").asText(fallbackName);
        HeadArchitecture arch = HeadArchitecture.parse(required(root, "architecture").asText());
        List<DenseLayer> layers = new ArrayList<>();
        JsonNode layerNodes = required(root, "layers");
        for (int i = 0; i < layerNodes.size(); i++) {
            JsonNode l = layerNodes.get(i);
            layers.add(new DenseLayer(matrix(required(l, "weight"), "layers[" + i + "].weight"),
                    vector(required(l, "bias"), "layers[" + i + "].bias")));
        }
        int dim = layers.isEmpty() ? 0 : layers.get(0).inputDim();
        float[] mean = root.has("featureMean") ? vector(root.get("featureMean"), "featureMean") : new float[dim];
        float[] scale;
        if (root.has("featureScale")) {
            scale = vector(root.get("featureScale"), "featureScale");
        } else {
            scale = new float[dim];
            java.util.Arrays.fill(scale, 1f);
        }
        for (int i = 0; i < scale.length; i++) {
            if (!(scale[i] > 0)) {
                throw new IllegalArgumentException("featureScale[" + i + "] must be > 0");
            }
        }
        return new ProbeHead(name, arch, mean, scale, layers);
    }

    public static void write(ProbeHead head, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), toJson(head));
    }

    public static ObjectNode toJson(ProbeHead head) {
        ObjectNode root = JSON.createObjectNode();
        root.put("name", head.name());
        root.put("architecture", head.architecture().id());
        root.put("inputDim", head.inputDim());
        root.set("featureMean", array(head.featureMean()));
        root.set("featureScale", array(head.featureScale()));
        ArrayNode layers = root.putArray("layers");
        for (DenseLayer l : head.layers()) {
            ObjectNode n = layers.addObject();
            ArrayNode w = n.putArray("weight");
            for (float[] row : l.weight()) {
                w.add(array(row));
            }
            n.set("bias", array(l.bias()));
        }
        return root;
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return v;
    }

    private static ArrayNode array(float[] v) {
        ArrayNode a = JSON.createArrayNode();
        for (float x : v) {
            a.add(x);
        }
        return a;
    }

    private static float[] vector(JsonNode n, String field) {
        if (!n.isArray()) {
            throw new IllegalArgumentException("'" + field + "' must be an array of numbers");
        }
        float[] v = new float[n.size()];
        for (int i = 0; i < v.length; i++) {
            if (!n.get(i).isNumber()) {
                throw new IllegalArgumentException("'" + field + "[" + i + "]' must be a number");
            }
            v[i] = (float) n.get(i).asDouble();
        }
        return v;
    }

    private static float[][] matrix(JsonNode n, String field) {
        if (!n.isArray()) {
            throw new IllegalArgumentException("'" + field + "' must be an array of rows");
        }
        float[][] m = new float[n.size()][];
        for (int i = 0; i < m.length; i++) {
            m[i] = vector(n.get(i), field + "[" + i + "]");
        }
        return m;
    }
}
