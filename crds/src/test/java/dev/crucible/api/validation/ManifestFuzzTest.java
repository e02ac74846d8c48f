package dev.crucible.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.api.compat.RepoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Mutates the valid examples thousands of times (dropped fields, wrong types, out-of-range numbers,
 * huge strings, odd unicode, deep nesting, duplicate keys). The validator must never throw, and
 * every rejection must name a field path of the document.
 */
public class ManifestFuzzTest {

    private static final int CASES = 2500;
    private static final Set<String> ROOTS = Set.of("apiVersion", "kind", "metadata", "spec", "status");
    private static final YAMLMapper YAML = new YAMLMapper();

    private final ManifestValidator validator = new ManifestValidator();
    /** The seed the parity tier in e2e uses too, so both see the same cases. */
    public static final long SEED = 20261122L;
    private final ManifestMutations mutations = new ManifestMutations(SEED);

    @Test
    void mutatedExamplesNeverCrashTheValidatorAndRejectionsNameAPath() throws IOException {
        List<Manifest> seeds = seeds();
        int rejected = 0;
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            Manifest seed = seeds.get(mutations.nextInt(seeds.size()));
            boolean textual = i % 10 == 0;
            String mutation;
            List<ValidationError> errors;
            if (textual) {
                mutation = "duplicate-key";
                String text = mutations.duplicateKey(YAML.writeValueAsString(seed.body()));
                ManifestReader.Result read = new ManifestReader().readString("fuzz.yaml", text);
                errors = new ArrayList<>(read.errors());
                read.manifests().forEach(m -> errors.addAll(validator.validate(m, SemanticChecks.Context.cluster())));
                if (read.errors().isEmpty()) {
                    problems.add("case " + i + ": duplicate key was accepted by the reader");
                }
            } else {
                ObjectNode body = seed.body().deepCopy();
                mutation = mutations.mutate(body);
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

    public static List<Manifest> seeds() throws IOException {
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
}
