package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reporter is kept as parts of under 400 lines (issue 40) and installed as the one module pytest loads: the file
 * {@link PytestReporter#install} writes is the parts joined in order, and Python compiles it.
 */
class PytestReporterPartsTest {
    @TempDir Path dir;

    @Test
    void theInstalledReporterIsItsPartsJoined() throws Exception {
        StringBuilder joined = new StringBuilder();
        for (String part : PytestReporter.PARTS) {
            try (InputStream in = PytestReporter.class.getResourceAsStream("reporter/" + part)) {
                assertThat(in).as(part).isNotNull();
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(text.lines().count()).as(part).isLessThan(400);
                joined.append(text);
            }
        }
        PytestReporter.install(dir, dir, Map.of());
        String installed = Files.readString(dir.resolve(PytestReporter.MODULE + ".py"));
        assertThat(installed).isEqualTo(joined.toString()).contains("class Reporter:", "def _seal():");
        assumeTrue(python3(), "python3 is needed to compile the reporter");
        Process p = new ProcessBuilder("python3", "-c", "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')",
                dir.resolve(PytestReporter.MODULE + ".py").toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    }

    private static boolean python3() {
        try {
            return new ProcessBuilder("python3", "-c", "pass").start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
