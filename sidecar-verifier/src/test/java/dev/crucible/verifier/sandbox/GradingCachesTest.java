package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner's cache in a read-only grading tree (issue 35 point 4): real pytest, with its cacheprovider on
 * and warnings as errors as many projects configure it, in a real box. Its .pytest_cache is writable, empty
 * at each command's start, and gone afterwards; the code beside it stays read-only.
 */
class GradingCachesTest {
    @TempDir
    Path dir;

    @BeforeEach
    void needs() throws Exception {
        assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem());
        Process p = new ProcessBuilder("python3", "-c", "import pytest").redirectErrorStream(true).start();
        assumeTrue(p.waitFor() == 0, "python3 with pytest is not installed here");
    }

    @Test
    void pytestsCacheIsWritableAndFreshInEachBoxWhileTheCodeStaysReadOnly() throws Exception {
        Path grade = dir.resolve("grade-1");
        Path results = Files.createDirectories(dir.resolve("results-1/home"));
        Fixtures.write(grade.resolve("pytest.ini"), "[pytest]\nfilterwarnings = error\n");
        Fixtures.write(grade.resolve("calc.py"), "X = 1\n");
        Fixtures.write(grade.resolve("test_cache.py"), """
                import os, pathlib

                def test_cache_is_fresh_and_the_code_read_only():
                    marker = pathlib.Path('.pytest_cache/left-by-an-earlier-run')
                    assert not marker.exists()
                    marker.write_text('x')
                    try:
                        pathlib.Path('calc.py').write_text('X = 2\\n')
                        raise AssertionError('calc.py was writable')
                    except OSError:
                        pass
                """);
        GradingSandbox sandbox = new GradingSandbox(BoxLimits.defaults());
        for (int run = 1; run <= 2; run++) {
            ExecRequest req = new ExecRequest(List.of("python3", "-m", "pytest", "-q", "-p", "no:randomly"), grade,
                    Map.of("HOME", results.toString(), "TMPDIR", results.toString(), "PYTHONDONTWRITEBYTECODE", "1"), false,
                    Duration.ofSeconds(120), 65_536, null, true);
            ExecResult r = sandbox.run(req, pid -> { });
            assertThat(r.exitCode()).as("run " + run + ": " + r.stdout() + r.stderr()).isZero();
            assertThat(r.stdout()).contains("1 passed").doesNotContain("PytestCacheWarning");
        }
        assertThat(grade.resolve("calc.py")).hasContent("X = 1");
        try (Stream<Path> left = Files.list(grade.resolve(".pytest_cache"))) {
            assertThat(left).as("what pytest cached stays in the box").isEmpty();
        }
    }
}
