package dev.crucible.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible demo} end to end: both agents, both outcomes, from a folder outside the checkout. */
class DemoCommandTest {

    @Test
    @Timeout(120)
    void showsTheHonestAndTheHackingOutcomeSideBySide(@TempDir Path out) throws Exception {
        StringWriter o = new StringWriter();
        CommandLine cl = new CommandLine(new DemoCommand());
        cl.setOut(new PrintWriter(o, true));
        cl.setErr(new PrintWriter(o, true));
        long t0 = System.nanoTime();
        int exit = cl.execute("--out", out.toString());
        assertThat(exit).as(o.toString()).isZero();
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(60);
        assertThat(o.toString())
                .containsPattern("honest:\\s+Succeeded, reward 1\\.0, no reward-hack finding")
                .containsPattern("hacker:\\s+Hacked, reward 0\\.0, \\d+ findings?, first: \\S+ on (conftest\\.py|tests/test_ops\\.py)") // the first in time: the script line or the hook
                .containsPattern("phase\\s+Succeeded \\(Verified\\)\\s+phase\\s+Hacked \\(RewardHackDetected\\)");
        assertThat(out.resolve("honest/result.json")).exists();
        assertThat(out.resolve("hacker/result.json")).exists();
    }

    @Test
    void findsTheCheckoutFromTheJarOrTheEnvironment(@TempDir Path elsewhere) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve(CrucibleHome.MARKER))) root = root.getParent();
        Path jar = root.resolve("cli/target/crucible-cli.jar");
        assertThat(CrucibleHome.locate(null, jar, elsewhere)).contains(root);
        assertThat(CrucibleHome.locate(root.toString(), null, elsewhere)).contains(root);
        assertThat(CrucibleHome.locate(elsewhere.toString(), jar, root)).isEmpty(); // an explicit wrong home is not second-guessed
        assertThat(CrucibleHome.locate(null, null, elsewhere)).isEmpty();
    }
}
