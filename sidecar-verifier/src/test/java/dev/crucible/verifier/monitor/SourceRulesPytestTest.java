package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the syntax-rules helper's own pytest suite ({@code src/test/python/source_rules_tests}) in the module's test
 * phase. Skipped, saying why, when no {@code python3} with pytest is on PATH. {@code -B} and no cache provider: the
 * run leaves no byte code or cache beside the resources the jar ships.
 */
class SourceRulesPytestTest {
    @Test
    void theHelpersPytestSuitePasses() throws IOException, InterruptedException {
        Process probe = new ProcessBuilder("python3", "-c", "import pytest").redirectErrorStream(true).start();
        String why = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assumeTrue(probe.waitFor() == 0, "the source_rules pytest suite needs python3 with pytest on PATH: " + why);

        ProcessBuilder pb = new ProcessBuilder("python3", "-B", "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                Path.of("src/test/python/source_rules_tests").toString()).redirectErrorStream(true);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("pytest finished").isTrue();
        System.out.println(out.strip());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as(out).containsPattern("\\d+ passed");
    }
}
