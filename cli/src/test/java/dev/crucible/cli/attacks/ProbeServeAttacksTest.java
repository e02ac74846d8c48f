package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 "Probe server: it binds 0.0.0.0 with no --host option": {@code crucible probe serve} on a
 * laptop or CI box must not be reachable from the network unless asked. Trains the bundled tiny probe
 * (smallest sweep), serves it without --host and connects from the host's non-loopback address.
 */
@Tag("attacks")
@Timeout(300)
class ProbeServeAttacksTest {

    // Attack: another machine on the network scores (and burns CPU on) a developer's probe server.
    // Must hold: without --host the CLI binds 127.0.0.1 only; the host's own non-loopback address is refused.
    @Test
    void probeServeBindsLoopbackByDefault(@TempDir Path probe) throws Exception {
        Path repo = AttackFixtures.repo();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Process train = new ProcessBuilder(java, "-Xmx1g", "-cp", cp, "dev.crucible.cli.Main", "probe", "train",
                "--corpus", repo.resolve("examples/probe/corpus.jsonl").toString(),
                "--model", repo.resolve("probe-server/src/test/resources/tiny-model").toString(), "--out", probe.toString(),
                "--layers", "0", "--poolings", "mean_full", "--aggregations", "mean_full", "--architectures", "linear",
                "--device", "cpu").redirectErrorStream(true).start();
        String trainOut = new String(train.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(train.waitFor(240, TimeUnit.SECONDS) && train.exitValue() == 0).as(trainOut).isTrue();

        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process serve = new ProcessBuilder(java, "-Xmx512m", "-cp", cp, "dev.crucible.cli.Main", "probe", "serve",
                "--model", probe.toString(), "--port", Integer.toString(port), "--device", "cpu").redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
            Pattern started = Pattern.compile("probe server .* on ([0-9.:a-f\\[\\]]+):(\\d+)");
            String host = null;
            String line;
            StringBuilder log = new StringBuilder();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (host == null && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                log.append(line).append('\n');
                Matcher m = started.matcher(line);
                if (m.find()) host = m.group(1);
            }
            assertThat(host).as("the server did not start:\n" + log).isNotNull();
            assertThat(host).as("bind address without --host").isEqualTo("127.0.0.1");
            String external = AttackHost.firstNonLoopbackIpv4();
            Assumptions.assumeTrue(external != null, "no non-loopback address on this host to try");
            boolean connected;
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(external, port), 2000);
                connected = true;
            } catch (java.io.IOException refused) {
                connected = false;
            }
            assertThat(connected).as("probe server reachable on " + external + ":" + port).isFalse();
        } finally {
            serve.destroy();
            if (!serve.waitFor(20, TimeUnit.SECONDS)) serve.destroyForcibly();
        }
    }
}
