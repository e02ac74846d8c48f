package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the pytest suites of the Python this module ships ({@code src/test/python/*_tests}: the source-rules helper,
 * the isolated oracle's decoys) in the module's test phase. Skipped, saying why, when no {@code python3} with pytest
 * is on PATH. {@code -B} and no cache provider: the run leaves no byte code or cache beside the resources the jar ships.
 */
class PythonSuitesPytestTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"source_rules_tests", "oracle_tests"})
    void theSuitePasses(String suite) throws IOException, InterruptedException {
        Process probe = new ProcessBuilder("python3", "-c", "import pytest").redirectErrorStream(true).start();
        String why = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assumeTrue(probe.waitFor() == 0, "the " + suite + " pytest suite needs python3 with pytest on PATH: " + why);

        ProcessBuilder pb = new ProcessBuilder("python3", "-B", "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                Path.of("src/test/python", suite).toString()).redirectErrorStream(true);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("pytest finished").isTrue();
        System.out.println(out.strip());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as(out).containsPattern("\\d+ passed");
    }
}
