package dev.crucible.verifier.monitor;

import dev.crucible.contract.DetectorNames;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Processes reported by the agent-exec container's runner (another PID namespace) go through the same
 * rules as sampled ones: command lines, hidden and grader files held open, and sockets, looked up in
 * this process's own tables (a pod has one network namespace). Real sockets of this JVM stand for the
 * agent's: a UDP socket connected to an outside address, and one to loopback.
 */
class ObservedProcessesTest {
    @TempDir Path dir;
    private final List<Finding> got = new CopyOnWriteArrayList<>();

    private HackMonitor monitor(Path ws, Path hidden) {
        VerifierSpec pytest = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        PristineSnapshot p = PristineSnapshot.take(ws, ProtectedPaths.of(pytest, true), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(hidden), List.of(), List.of(), List.of(), Set.of(),
                Duration.ofHours(1), Duration.ofHours(1), "python3");
        HackMonitor m = new HackMonitor(cfg, got::add);
        m.start();
        return m;
    }

    private static Set<String> sockets() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.map(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    return "";
                }
            }).filter(t -> t.startsWith("socket:[")).collect(Collectors.toSet());
        }
    }

    /**
     * The inode target ("socket:[N]") of a UDP socket connected to {@code host}, found in the socket table by
     * its peer port, one no other socket of this JVM uses (tests run in parallel: a diff of this process's
     * fds before and after also caught another test's socket).
     */
    private static String connectedUdp(String host, List<DatagramChannel> keep) throws IOException {
        DatagramChannel ch = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
        keep.add(ch);
        int port = 20000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(40000);
        ch.connect(new InetSocketAddress(host, port)); // UDP: no packet leaves, the socket is only bound to its peer
        List<String> inodes = SocketTable.read(Path.of("/proc/self/net/udp")).stream()
                .filter(e -> e.remotePort() == port).map(SocketTable.Entry::inode).toList();
        assertThat(inodes).hasSize(1);
        assertThat(sockets()).contains("socket:[" + inodes.get(0) + "]");
        return "socket:[" + inodes.get(0) + "]";
    }

    @Test
    void reportedProcessesMeetTheSamplersRules() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/net")), "needs /proc/self/net");
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "x = 1\n");
        Path hidden = dir.resolve("hidden");
        Fixtures.write(hidden.resolve("test_hidden.py"), "def test(): pass\n");
        List<DatagramChannel> keep = new CopyOnWriteArrayList<>();
        try (HackMonitor m = monitor(ws, hidden)) {
            String outside;
            try {
                outside = connectedUdp("192.0.2.1", keep);
            } catch (IOException e) {
                assumeTrue(false, "needs a route to 192.0.2.1 (TEST-NET-1) for a connected UDP socket: " + e.getMessage());
                return;
            }
            String loopback = connectedUdp("127.0.0.1", keep);
            m.observeProcesses(List.of(
                    new ObservedProcess(7, 1, 100, "git cat-file -p 1234abcd", List.of(hidden.resolve("test_hidden.py").toString())),
                    new ObservedProcess(8, 1, 101, null, List.of(loopback, ws.resolve("calc/ops.py").toString())),
                    new ObservedProcess(9, 1, 102, "python3 client.py", List.of(outside))));
            assertThat(got).extracting(Finding::detector).containsExactlyInAnyOrder(
                    DetectorNames.GIT_HISTORY, DetectorNames.HIDDEN_TEST_ACCESS, DetectorNames.NETWORK_EGRESS);
            assertThat(got).filteredOn(f -> f.detector().equals(DetectorNames.GIT_HISTORY)).singleElement()
                    .satisfies(f -> assertThat(f.evidence()).contains("agent container pid 7"));
            assertThat(got).filteredOn(f -> f.detector().equals(DetectorNames.NETWORK_EGRESS)).singleElement()
                    .satisfies(f -> assertThat(f.evidence()).contains("192.0.2.1:", "from the agent container"));
        } finally {
            for (DatagramChannel c : keep) c.close();
        }
    }

    @Test
    void oneAttemptSeenThroughItsWrappersIsOneFinding() throws Exception {
        // the same socket call shows in the command line of every process that carries it (sh -c, unshare, python3 -c):
        // one finding per rule and attempt, not one per process; another address is another attempt
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "x = 1\n");
        String code = "import socket; socket.create_connection(('192.0.2.1', 80))";
        try (HackMonitor m = monitor(ws, dir.resolve("hidden"))) {
            m.observeProcesses(List.of(new ObservedProcess(7, 1, 100, "sh -c python3 -c \"" + code + "\"", List.of()),
                    new ObservedProcess(8, 7, 101, "unshare -rn python3 -c " + code, List.of()),
                    new ObservedProcess(9, 8, 102, "python3 -c " + code, List.of())));
            m.observeProcesses(List.of(new ObservedProcess(10, 1, 103, "python3 -c " + code.replace("192.0.2.1", "198.51.100.7"), List.of())));
        }
        assertThat(got).filteredOn(f -> "raw-socket".equals(f.rule())).extracting(Finding::evidence)
                .hasSize(2).anyMatch(e -> e.contains("192.0.2.1")).anyMatch(e -> e.contains("198.51.100.7"));
    }
}
