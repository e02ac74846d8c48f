package dev.crucible.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.api.compat.RepoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Mutates the valid examples thousands of times (dropped fields, wrong types, out-of-range numbers,
 * huge strings, odd unicode, deep nesting, duplicate keys). The validator must never throw, and
 * every rejection must name a field path of the document.
 */
class ManifestFuzzTest {

    private static final int CASES = 2500;
    private static final Set<String> ROOTS = Set.of("apiVersion", "kind", "metadata", "spec", "status");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final YAMLMapper YAML = new YAMLMapper();

    private final ManifestValidator validator = new ManifestValidator();
    private final Random random = new Random(20261122L);

    @Test
    void mutatedExamplesNeverCrashTheValidatorAndRejectionsNameAPath() throws IOException {
        List<Manifest> seeds = seeds();
        int rejected = 0;
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            Manifest seed = seeds.get(random.nextInt(seeds.size()));
            boolean textual = i % 10 == 0;
            String mutation;
            List<ValidationError> errors;
            if (textual) {
                mutation = "duplicate-key";
                String text = duplicateKey(YAML.writeValueAsString(seed.body()));
                ManifestReader.Result read = new ManifestReader().readString("fuzz.yaml", text);
                errors = new ArrayList<>(read.errors());
                read.manifests().forEach(m -> errors.addAll(validator.validate(m, SemanticChecks.Context.cluster())));
                if (read.errors().isEmpty()) {
                    problems.add("case " + i + ": duplicate key was accepted by the reader");
                }
            } else {
                ObjectNode body = seed.body().deepCopy();
                mutation = mutate(body);
                errors = validator.validate(new Manifest("fuzz.yaml", 1, body), SemanticChecks.Context.cluster());
            }
            if (!errors.isEmpty()) {
                rejected++;
            }
            for (ValidationError e : errors) {
                String root = e.path().split("[.\\[]", 2)[0];
                // A YAML syntax error has no field yet; it must name its line instead.
                boolean syntax = e.message().startsWith("cannot parse YAML") && e.line() > 0;
                boolean named = ROOTS.contains(root) || syntax || (e.message().equals("unknown field") && !e.path().startsWith("("));
                if (!named || e.message().startsWith("internal validation error") || e.toString().contains("\n")) {
                    problems.add("case " + i + " (" + mutation + "): " + e);
                }
            }
        }
        assertThat(problems).as("rejections without a field path, or validator crashes").isEmpty();
        // Most mutations break something; if almost none are rejected the fuzzer is not reaching the schema.
        assertThat(rejected).as("rejected cases of " + CASES).isGreaterThan(CASES / 2);
    }

    private List<Manifest> seeds() throws IOException {
        Path examples = RepoPaths.root().resolve("examples");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(examples)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> !p.startsWith(examples.resolve("invalid")) && !p.toString().contains("/workspace/"))
                    .sorted().toList();
        }
        List<Manifest> manifests = new ManifestReader().read(files).manifests();
        assertThat(manifests).isNotEmpty();
        return manifests;
    }

    /** Applies one random mutation somewhere in the tree and says which. */
    private String mutate(ObjectNode root) {
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

    /** Repeats one mapping key line (with its value) right after itself. */
    private String duplicateKey(String yaml) {
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
}
