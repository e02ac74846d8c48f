package dev.crucible.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.compat.RepoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The on-disk cache of checked CEL rules changes nothing but speed: every parity case and example gets
 * the same errors with no cache, a cold cache (compiles and writes), a warm one (reads the stored
 * CheckedExpr protos) and a corrupted one (ignored and rewritten).
 */
class CheckedRuleCacheTest {

    private static List<Path> inputs() throws IOException {
        List<Path> files = new ArrayList<>();
        files.addAll(ParityCasesTest.cases("valid"));
        files.addAll(ParityCasesTest.cases("invalid"));
        try (Stream<Path> s = Files.walk(RepoPaths.root().resolve("examples"))) {
            s.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("/workspace/")).sorted().forEach(files::add);
        }
        return files;
    }

    private static List<String> errors(ManifestValidator v, List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            v.validatePaths(List.of(f)).forEach(e -> out.add(e.toString()));
        }
        return out;
    }

    @Test
    void sameErrorsWithoutColdWarmAndCorruptedCache(@TempDir Path dir) throws IOException {
        List<Path> files = inputs();
        List<String> expected = errors(new ManifestValidator(), files);
        assertThat(expected).hasSizeGreaterThan(60).anyMatch(e -> e.contains("toleration"));

        assertThat(errors(ManifestValidator.withRuleCache(dir), files)).as("cold").isEqualTo(expected);
        List<Path> stored;
        try (Stream<Path> s = Files.list(dir)) {
            stored = s.filter(p -> p.getFileName().toString().startsWith("rules-")).toList();
        }
        assertThat(stored).as("one file per CRD met").hasSize(CrdSchemas.FILES.size());
        assertThat(errors(ManifestValidator.withRuleCache(dir), files)).as("warm").isEqualTo(expected);

        for (Path p : stored) {
            byte[] b = Files.readAllBytes(p);
            Files.write(p, java.util.Arrays.copyOf(b, b.length / 2)); // torn write
        }
        assertThat(errors(ManifestValidator.withRuleCache(dir), files)).as("corrupted").isEqualTo(expected);
        assertThat(Files.size(stored.get(0))).as("rewritten").isGreaterThan(100);
    }

    @Test
    void aStoredRuleIsReadNotCompiled(@TempDir Path dir) {
        CrdSchemas.Crd rollout = new CrdSchemas().forKind("Rollout");
        CheckedRuleCache cache = new CheckedRuleCache(dir);
        ManifestValidator.withRuleCache(dir).validatePaths(List.of(RepoPaths.root().resolve("examples/python-bugfix/rollout.yaml")));
        var rules = cache.read(rollout.digest());
        assertThat(rules).isNotNull().isNotEmpty();
        assertThat(rules.keySet()).noneMatch(r -> r.contains("oldSelf"))
                .anyMatch(r -> r.contains("self.mode != 'embedded'"));
        // Another CRD content (another digest) never reads this file.
        assertThat(cache.read("0".repeat(64))).isNull();
    }
}
