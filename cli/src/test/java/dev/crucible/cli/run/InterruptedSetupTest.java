package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One Ctrl-C during setup must not poison the environment cache (hostred3 B3): the half-made prefix of an interrupted
 * setup (a venv without pip, a package half installed) was reused by every later run of the environment, whose honest
 * agent then graded "No module named pytest", Succeeded with reward 0. Here setup installs a module the tests import in
 * two steps, like pip: a broken file first, the real one after a sleep, skipping the install when the file is there
 * ("already satisfied"). A real {@code crucible run} is SIGINT'd in the sleep; the next run of the same environment must
 * rebuild the prefix and score the honest agent 1.
 */
@Timeout(400)
class InterruptedSetupTest {

    @Test
    void anInterruptedSetupLeavesNoPrefixForTheNextRunToReuse(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.copyExample(dir.resolve("env"), null);
        Path slow = dir.resolve("slow-setup"); // present: the first install sleeps (and is interrupted); the second run does not
        Files.writeString(slow, "");
        Path manifest = env.resolve("environment.yaml");
        String setup = String.join("\n",
                "SP=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')",
                "      if [ ! -f \"$SP/calchelper.py\" ]; then",
                "        echo 'raise ImportError(\"calchelper half installed\")' > \"$SP/calchelper.py\"",
                "        if [ -f " + slow + " ]; then echo installing-calchelper; sleep 120; fi",
                "        echo 'VALUE = 1' > \"$SP/calchelper.py\"",
                "      fi");
        Files.writeString(manifest, Files.readString(manifest).replace("python3 -m pip --version >/dev/null 2>&1 || true", setup));
        Path tests = env.resolve("workspace/tests/test_ops.py");
        Files.writeString(tests, "import calchelper  # installed by setup\n" + Files.readString(tests));
        Path cache = dir.resolve("envs");

        Path out1 = dir.resolve("out1");
        Path log1 = dir.resolve("cli1.log");
        Process cli = start(env, cache, out1, log1);
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            while (!(Files.exists(out1.resolve("setup.log")) && Files.readString(out1.resolve("setup.log")).contains("installing-calchelper"))) {
                assertThat(cli.isAlive()).as(Files.readString(log1)).isTrue();
                assertThat(System.nanoTime()).as("setup never reached its sleep: " + Files.readString(log1)).isLessThan(until);
                Thread.sleep(100);
            }
            new ProcessBuilder("kill", "-INT", Long.toString(cli.pid())).start().waitFor();
            assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(log1)).isTrue();
            assertThat(cli.exitValue()).as(Files.readString(log1)).isEqualTo(130);
        } finally {
            cli.destroyForcibly();
        }
        assertThat(LocalRuns.json(out1.resolve("result.json")).path("reason").asText()).isEqualTo("Interrupted");
        Files.delete(slow);

        Path out2 = dir.resolve("out2");
        Path log2 = dir.resolve("cli2.log");
        Process again = start(env, cache, out2, log2);
        try {
            assertThat(again.waitFor(240, TimeUnit.SECONDS)).as(Files.readString(log2)).isTrue();
        } finally {
            again.destroyForcibly();
        }
        JsonNode res = LocalRuns.json(out2.resolve("result.json"));
        assertThat(res.path("reward").asDouble()).as(Files.readString(log2) + "\n--- setup.log\n" + Files.readString(out2.resolve("setup.log")))
                .isEqualTo(1.0);
        assertThat(Files.readString(log2)).contains("half-made");
    }

    private static Process start(Path env, Path cache, Path out, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> argv = new ArrayList<>(List.of("python3", "-c",
                // SIGINT back to its default (see InterruptTest): a background test JVM passes it on ignored
                "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
                java, "-Dcrucible.envCache=" + cache, "-cp", System.getProperty("java.class.path"), RunCommand.class.getName(),
                "-f", env.toString(), "--agent-cmd", "sh " + LocalRuns.agent("honest.sh"), "--out", out.toString()));
        return new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(new File("/dev/null")).start();
    }
}
