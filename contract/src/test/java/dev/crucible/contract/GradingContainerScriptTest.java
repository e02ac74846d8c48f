package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grading runner is kept as parts of under 400 lines (issue 40) and runs as one file: {@link GradingContainer#script()}
 * joins them in order, and the joined script is a whole program (it runs to its argument check) with the
 * module docstring first and the entry point last.
 */
class GradingContainerScriptTest {
    @TempDir Path dir;

    @Test
    void thePartsAreShortAndJoinIntoOneProgram() throws Exception {
        StringBuilder joined = new StringBuilder();
        for (String part : GradingContainer.PARTS) {
            try (InputStream in = GradingContainer.class.getResourceAsStream(GradingContainer.RESOURCE + "/" + part)) {
                assertThat(in).as(part).isNotNull();
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(text.lines().count()).as(part).isLessThan(400);
                joined.append(text);
            }
        }
        String script = GradingContainer.script();
        assertThat(script).isEqualTo(joined.toString()).startsWith("\"\"\"Crucible's grading runner").contains("class Runner:")
                .endsWith("    sys.exit(main(sys.argv[1:]))\n");
        Path file = Files.writeString(dir.resolve("grading-runner.py"), script);
        assumeTrue(python3(), "python3 is needed to run the script");
        Process p = new ProcessBuilder("python3", "-I", "-S", file.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(1);
        assertThat(out).contains("crucible-grading-runner: --socket PATH: required");
    }

    private static boolean python3() {
        try {
            return new ProcessBuilder("python3", "-c", "pass").start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
