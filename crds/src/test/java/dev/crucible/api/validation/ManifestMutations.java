package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzzer's mutations of valid manifests (dropped fields, wrong types, out-of-range numbers, huge
 * strings, odd unicode, deep nesting, nulls, duplicate keys), shared by {@link ManifestFuzzTest} and the
 * parity tier in e2e, which sends the same cases to a real API server.
 */
public final class ManifestMutations {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private final Random random;

    public ManifestMutations(long seed) {
        this.random = new Random(seed);
    }

    public int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** Applies one random mutation somewhere in the tree and says which. */
    public String mutate(ObjectNode root) {
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        JsonNode target = containers.get(random.nextInt(containers.size()));
        int op = random.nextInt(8);
        if (target instanceof ObjectNode obj && obj.size() > 0) {
            String field = pick(obj);
            switch (op) {
                case 0 -> obj.remove(field);
                case 1 -> obj.set(field, wrongType(obj.get(field)));
                case 2 -> obj.put(field, outOfRange());
                case 3 -> obj.put(field, "x".repeat(200_000 + random.nextInt(1000)));
                case 4 -> obj.put(field, oddUnicode());
                case 5 -> obj.set("nested" + random.nextInt(9), deep(50 + random.nextInt(300)));
                case 6 -> obj.putNull(field);
                default -> obj.put(oddUnicode(), "unexpected");
            }
            return "op" + op + " on " + field;
        }
        if (target instanceof ArrayNode arr) {
            switch (op % 4) {
                case 0 -> arr.add(wrongType(arr.size() > 0 ? arr.get(0) : F.textNode("")));
                case 1 -> {
                    for (int i = 0; i < 20_000; i++) {
                        arr.add("item" + i);
                    }
                }
                case 2 -> arr.removeAll();
                default -> arr.add(deep(100));
            }
            return "array op" + op % 4;
        }
        return "none";
    }

    /** Repeats one mapping key line (with its value) right after itself. */
    public String duplicateKey(String yaml) {
        String[] lines = yaml.split("\n");
        List<Integer> candidates = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].matches("\\s*[A-Za-z][A-Za-z0-9]*: \\S.*") && !lines[i].trim().startsWith("- ")) {
                candidates.add(i);
            }
        }
        int at = candidates.get(random.nextInt(candidates.size()));
        List<String> out = new ArrayList<>(List.of(lines));
        out.add(at + 1, lines[at]);
        return String.join("\n", out) + "\n";
    }

    private void collect(JsonNode node, List<JsonNode> out) {
        if (node.isContainerNode()) {
            out.add(node);
            node.forEach(child -> collect(child, out));
        }
    }

    private String pick(ObjectNode obj) {
        List<String> names = new ArrayList<>();
        obj.fieldNames().forEachRemaining(names::add);
        return names.get(random.nextInt(names.size()));
    }

    private JsonNode wrongType(JsonNode original) {
        if (original == null || original.isTextual()) {
            return random.nextBoolean() ? F.numberNode(random.nextInt()) : F.arrayNode().add("a");
        }
        if (original.isNumber()) {
            return random.nextBoolean() ? F.textNode("12x") : F.booleanNode(true);
        }
        if (original.isObject()) {
            return F.arrayNode().add(1);
        }
        if (original.isArray()) {
            return F.objectNode().put("k", "v");
        }
        return F.textNode("true");
    }

    private long outOfRange() {
        long[] values = {-1, 0, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE + 1L, 99_999_999_999L};
        return values[random.nextInt(values.length)];
    }

    private String oddUnicode() {
        String[] values = {"\u202Eevil\u202C", "zero\u200Bwidth", "emoji😀name", "nul\u0000byte", "\uFEFFbom",
                "Ω≈ç√∫", "ｆｕｌｌ", "a\nb", "", " "};
        return values[random.nextInt(values.length)];
    }

    private static JsonNode deep(int depth) {
        ObjectNode root = F.objectNode();
        ObjectNode cur = root;
        for (int i = 0; i < depth; i++) {
            cur = cur.putObject("a");
        }
        return root;
    }
}
