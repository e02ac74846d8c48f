package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exec server's sweep is kill(-1, SIGKILL): right only as PID 1 of the box's own PID namespace. Called by any
 * other process it must refuse, not kill. The check runs in a PID namespace of its own (unshare, as a user
 * namespace's root), where the sweep is PID 3 beside a canary: a sweep that did not refuse kills only the canary
 * there, never a process of this machine.
 */
class BoxExecServerSweepTest {
    private static final String HARNESS = String.join("\n",
            "import sys",
            "src = open(sys.argv[1]).read().rstrip()",
            "assert src.endswith('main()'), 'the server no longer ends with main()'",
            "ns = {'__name__': 'box_exec_server'}",
            "exec(compile(src[:-len('main()')], 'box_exec_server.py', 'exec'), ns)",
            "try:",
            "    ns['sweep']()",
            "    print('SWEPT', flush=True)",
            "except RuntimeError as e:",
            "    print('REFUSED', e, flush=True)",
            "");

    @TempDir
    Path dir;

    @Test
    void sweepRefusesUnlessItIsPidOne() throws Exception {
        assumeTrue(ok("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "true"), "no user and PID namespaces here");
        Path server = dir.resolve("box_exec_server.py");
        try (InputStream in = BoxExecServerSweepTest.class.getResourceAsStream("/dev/crucible/verifier/sandbox/box_exec_server.py")) {
            Files.write(server, in.readAllBytes());
        }
        Path harness = Files.writeString(dir.resolve("harness.py"), HARNESS);
        String script = "sleep 60 & canary=$!; python3 \"$1\" \"$2\"; if kill -0 $canary 2>/dev/null; then echo CANARY-ALIVE; kill $canary; fi";
        Process p = new ProcessBuilder("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc",
                "sh", "-c", script, "sh", harness.toString(), server.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as("the sweep as PID 3 of its namespace").contains("REFUSED").contains("not PID 1").doesNotContain("SWEPT");
        assertThat(out).as("the canary beside it").contains("CANARY-ALIVE");
    }

    private static boolean ok(String... cmd) {
        try {
            Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
