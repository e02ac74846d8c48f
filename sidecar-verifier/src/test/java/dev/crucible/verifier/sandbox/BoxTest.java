package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real bwrap, real processes: what a boxed command can and cannot do, and how limits end it. */
class BoxTest {
    @TempDir Path tmp;
    Path ws;

    @BeforeEach
    void setUp() throws IOException {
        assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem());
        ws = Files.createDirectories(tmp.resolve("attempt-0/workspace"));
    }

    record Run(int code, String out) {}

    static Map<String, String> env() { return Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), "HOME", "/tmp/home"); }

    static Run run(Box box, Path cwd, String script, int seconds) throws Exception {
        List<String> argv = box.wrap(List.of("/bin/sh", "-c", script), cwd, env());
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env());
        Process p = pb.start();
        box.attach(p.pid());
        byte[][] out = new byte[1][];
        Thread t = new Thread(() -> { try { out[0] = p.getInputStream().readAllBytes(); } catch (IOException e) { out[0] = new byte[0]; } });
        t.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
        t.join(5000);
        box.noteExit(p.exitValue());
        return new Run(p.exitValue(), new String(out[0] == null ? new byte[0] : out[0], StandardCharsets.UTF_8));
    }

    Box open(BoxLimits l) throws IOException { return Box.open(BoxSpec.of("test", l).withWritable(ws)); }

    /**
     * A folder to show read-only that is the host's root (a toolchain found in /bin, whose folder's parent is "/": host
     * round 6, B3, a CLI run under `setpriv --reset-env`) is never bound: the box keeps its own root and /tmp.
     */
    @Test
    void theHostsRootIsNeverShownEvenWhenAskedFor() throws Exception {
        Path marker = Files.createTempFile(Path.of("/tmp"), "crucible-host-root-", ".txt");
        try (Box box = Box.open(BoxSpec.of("test", BoxLimits.defaults()).withWritable(ws).withReadOnly(List.of(Path.of("/"))))) {
            Run r = run(box, ws, "test -e " + marker + " && echo SEEN; ls /tmp | wc -l; echo done", 60);
            assertThat(r.out()).as(r.out()).contains("done").doesNotContain("SEEN");
            assertThat(r.out().strip().lines().findFirst().orElse("")).as("the box's own /tmp, nearly empty").isIn("0", "1", "2");
        } finally {
            Files.deleteIfExists(marker);
        }
    }

    @Test
    void aLongOpenBoxKeepsItsUidAndItsProcessWhileManyOthersOpenAndClose() throws Exception {
        assumeTrue(Box.ROOT, "boxes get uids of their own only when the CLI is root");
        try (Box longLived = open(BoxLimits.defaults())) {
            List<String> argv = longLived.wrap(List.of("/bin/sh", "-c", "sleep 60"), ws, env());
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            longLived.attach(p.pid());
            try {
                for (int i = 0; i < 130; i++) { // twice around the 64 uids a JVM has
                    try (Box other = open(BoxLimits.defaults())) {
                        assertThat(other.uid()).isNotEqualTo(longLived.uid());
                    }
                }
                // closing the others emptied their cgroups: none was the long-lived box's
                assertThat(p.isAlive()).as("the long-lived box's process").isTrue();
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void noCapabilitiesAndAnUnprivilegedIdOutside() throws Exception {
        try (Box box = open(BoxLimits.defaults())) {
            Run r = run(box, ws, "grep CapEff /proc/self/status; cat /proc/self/uid_map; id -u", 20);
            assertThat(r.out()).contains("CapEff:\t0000000000000000");
            String[] map = r.out().lines().filter(l -> l.trim().startsWith("0 ")).findFirst().orElseThrow().trim().split("\\s+");
            if (Box.ROOT) assertThat(Integer.parseInt(map[1])).isNotZero().isGreaterThanOrEqualTo(Box.UID_BASE);
            Run remount = run(box, ws, "mount -o remount,rw / && echo REMOUNTED; umount /proc && echo UNMOUNTED; echo done", 20);
            assertThat(remount.out()).doesNotContain("REMOUNTED").doesNotContain("UNMOUNTED").contains("done");
        }
    }

    @Test
    void writesOnlyInTheWorkspaceAndSeesNothingOfTheHost() throws Exception {
        Path secret = Files.createDirectories(tmp.resolve("private"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(secret.resolve("token"), "s3cret");
        Path sibling = Files.createDirectories(tmp.resolve("attempt-1/workspace"));
        Files.writeString(sibling.resolve("answer.py"), "x = 1");
        Path hostTmp = Files.createTempFile("crucible-boxtest-", ".txt");
        Path sock = Path.of("/tmp", "crucible-boxtest-" + ProcessHandle.current().pid() + ".sock");
        Files.deleteIfExists(sock);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX); Box box = open(BoxLimits.defaults())) {
            server.bind(UnixDomainSocketAddress.of(sock));
            String script = String.join("; ",
                    "echo ok > in-workspace && echo WS_WRITE",
                    "echo x > /usr/evil 2>/dev/null && echo USR_WRITE",
                    "echo x > " + tmp.resolve("outside") + " 2>/dev/null", // lands in the box's own /tmp, never the host's
                    "echo x > /etc/evil 2>/dev/null && echo ETC_WRITE",
                    "echo x > " + sibling.resolve("answer.py") + " 2>/dev/null",
                    "ls /root 2>/dev/null | grep -v '^\\.pyenv$' | grep . && echo ROOT_VISIBLE",
                    "test -e " + secret.resolve("token") + " && echo SECRET_VISIBLE",
                    "test -e " + sibling.resolve("answer.py") + " && echo SIBLING_VISIBLE",
                    "test -e " + hostTmp + " && echo HOSTTMP_VISIBLE",
                    "test -e " + sock + " && echo SOCKET_VISIBLE",
                    "test -e /root/.cache && echo CACHE_VISIBLE",
                    "test -e /etc/shadow && echo SHADOW_VISIBLE",
                    "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"" + sock + "\"); print(\"SOCKET_CONNECTED\")' 2>/dev/null",
                    "python3 -c 'import urllib.request; urllib.request.urlopen(\"http://1.1.1.1\", timeout=2); print(\"NET\")' 2>/dev/null",
                    "python3 -c 'import pytest; print(\"PYTEST_OK\")'",
                    "echo end");
            Run r = run(box, ws, script, 60);
            assertThat(r.out()).contains("WS_WRITE", "PYTEST_OK", "end")
                    .doesNotContain("USR_WRITE", "ETC_WRITE", "ROOT_VISIBLE", "SECRET_VISIBLE", "SIBLING_VISIBLE", "HOSTTMP_VISIBLE",
                            "SOCKET_VISIBLE", "CACHE_VISIBLE", "SHADOW_VISIBLE", "SOCKET_CONNECTED", "NET");
            assertThat(ws.resolve("in-workspace")).exists();
            assertThat(tmp.resolve("outside")).doesNotExist();
            assertThat(sibling.resolve("answer.py")).hasContent("x = 1");
        } finally {
            Files.deleteIfExists(sock);
            Files.deleteIfExists(hostTmp);
        }
    }

    /**
     * A read-only path inside the workspace (node_modules, a protected file) that the agent turned into a
     * link to a host folder between two commands: the next box binds nothing there, so the host folder
     * stays out of sight; a real folder there is bound read-only.
     */
    @Test
    void aReadOnlyPathTurnedIntoALinkOutOfTheWorkspaceIsNotBound() throws Exception {
        Path host = Files.createDirectories(tmp.resolve("host-secrets"));
        Files.writeString(host.resolve("key"), "s3cret");
        Path deps = ws.resolve("node_modules");
        try (Box box = Box.open(BoxSpec.of("test", BoxLimits.defaults()).withWritable(ws).withReadOnly(List.of(deps)))) {
            Files.createDirectories(deps.resolve("pad"));
            Files.writeString(deps.resolve("pad/index.js"), "1");
            Run real = run(box, ws, "cat node_modules/pad/index.js; echo; echo x > node_modules/pad/index.js 2>/dev/null && echo DEPS_WRITE; echo end", 60);
            assertThat(real.out()).contains("1", "end").doesNotContain("DEPS_WRITE");
            Fixtures.deleteTree(deps);
            Files.createSymbolicLink(deps, host);
            Run linked = run(box, ws, "cat node_modules/key 2>/dev/null && echo HOST_VISIBLE; cat " + host.resolve("key") + " 2>/dev/null && echo HOST_VISIBLE; echo end", 60);
            assertThat(linked.out()).contains("end").doesNotContain("s3cret", "HOST_VISIBLE");
        }
    }

    /**
     * Masks are the box's own (the oracle's workers hide the trusted test files this way): a masked file inside a
     * read-only bind reads as empty and cannot be written, a masked folder lists as empty, a missing mask is skipped,
     * and the host's files keep their bytes.
     */
    @Test
    void aMaskedPathReadsEmptyInsideTheBox() throws Exception {
        Path tree = Files.createDirectories(tmp.resolve("tree"));
        Files.writeString(tree.resolve("test_hidden.py"), "EXPECTED = 42");
        Files.writeString(tree.resolve("shown.py"), "SHOWN = 1");
        Files.createDirectories(tree.resolve("data"));
        Files.writeString(tree.resolve("data/answers.json"), "{\"a\": 42}");
        BoxSpec spec = BoxSpec.of("mask", BoxLimits.defaults()).withWritable(ws).withReadOnly(List.of(tree))
                .withMasks(List.of(tree.resolve("test_hidden.py"), tree.resolve("data"), tree.resolve("not-there.py")));
        try (Box box = Box.open(spec)) {
            Run r = run(box, ws, "echo \"[$(cat " + tree.resolve("test_hidden.py") + ")]\"; cat " + tree.resolve("shown.py")
                    + "; echo; echo \"<$(ls -A " + tree.resolve("data") + ")>\"; echo x > " + tree.resolve("test_hidden.py")
                    + " 2>/dev/null && echo MASK_WRITE; touch " + tree.resolve("data/new") + " 2>/dev/null && echo DIR_WRITE; echo end", 30);
            assertThat(r.out()).contains("[]", "SHOWN = 1", "<>", "end").doesNotContain("EXPECTED", "answers", "MASK_WRITE", "DIR_WRITE");
        }
        assertThat(tree.resolve("test_hidden.py")).hasContent("EXPECTED = 42");
        assertThat(tree.resolve("data/answers.json")).hasContent("{\"a\": 42}");
        assertThat(tree.resolve("data/new")).doesNotExist();
    }

    @Test
    void inheritedDescriptorsPassThrough() throws Exception {
        Path channel = tmp.resolve("channel");
        Path script = Files.writeString(Files.createDirectories(tmp.resolve("manifests/agents")).resolve("agent.sh"), "echo from-script >&3\n");
        Path seen = tmp.resolve("attempt-0/agents/agent.sh");
        try (Box box = Box.open(BoxSpec.of("fd", BoxLimits.defaults()).withWritable(ws).withFiles(Map.of(script, seen)))) {
            List<String> argv = new ArrayList<>(List.of("/bin/bash", "-c", "exec 3>\"$0\"; exec \"$@\"", channel.toString()));
            argv.addAll(box.wrap(List.of("/bin/sh", "-c", "echo through-fd3 >&3; sh " + seen + "; ls /proc/self/fd | tr '\\n' ' ' >&3;"
                    + " grep -c manifests /proc/self/mountinfo >&3; true"), ws, env()));
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
        }
        // fd 3 arrives, the named file is there without its folder, and the launcher's own descriptors do not leak in
        assertThat(Files.readString(channel)).startsWith("through-fd3\nfrom-script\n0 1 2 3 ").doesNotContain(" " + Box.FIRST_DATA_FD + " ")
                .endsWith(" 0\n");
    }

    @Test
    void aMemoryHogEndsWithTheMemoryReason() throws Exception {
        assumeTrue(Box.ROOT, "without cgroups memory is RLIMIT_AS (see describe)");
        try (Box box = open(BoxLimits.defaults().withMemory(64L << 20))) {
            Run r = run(box, ws, "python3 -c 'x = bytearray(400 * 1024 * 1024); x[::4096] = b\"1\" * len(x[::4096]); print(\"SURVIVED\")'", 60);
            assertThat(r.out()).doesNotContain("SURVIVED");
            assertThat(box.limitExceeded()).hasValueSatisfying(s -> assertThat(s).contains("memory limit 64Mi"));
        }
    }

    @Test
    void aForkBombIsBoundedAndEndsWithTheProcessReason() throws Exception {
        try (Box box = open(BoxLimits.defaults().withPids(40))) {
            long t0 = System.nanoTime();
            run(box, ws, "bomb() { bomb | bomb & }; bomb; sleep 30", 60);
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
            if (Box.ROOT) assertThat(box.limitExceeded()).hasValueSatisfying(s -> assertThat(s).contains("process limit 40"));
        }
    }

    @Test
    void aCpuSpinnerEndsWithTheCpuReason() throws Exception {
        try (Box box = open(BoxLimits.defaults().withCpuSeconds(1))) {
            long t0 = System.nanoTime();
            run(box, ws, "while :; do :; done", 60);
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
            assertThat(box.limitExceeded()).hasValueSatisfying(s -> assertThat(s).contains("CPU time limit 1 s"));
        }
    }

    @Test
    void aDiskFillerEndsWithTheDiskReason() throws Exception {
        try (Box box = open(BoxLimits.defaults().withDisk(8L << 20))) {
            long t0 = System.nanoTime();
            run(box, ws, "i=0; while :; do i=$((i+1)); head -c 1048576 /dev/zero > f$i || exit 1; sleep 0.05; done", 60);
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
            assertThat(box.limitExceeded()).hasValueSatisfying(s -> assertThat(s).contains("disk limit 8Mi"));
        }
        try (Box box = open(BoxLimits.defaults().withDisk(8L << 20))) {
            run(box, ws, "head -c 20000000 /dev/zero > one-big-file", 60);
            assertThat(box.limitExceeded()).hasValueSatisfying(s -> assertThat(s).contains("8Mi"));
        }
    }

    @Test
    void describeSaysWhatIsEnforced() throws Exception {
        try (Box box = open(BoxLimits.of("1", "1Gi", null, 600))) {
            assertThat(box.describe()).contains("no network", "memory 1Gi", "processes 1024", "CPU time 600 s", "NOT limited: disk");
        }
    }
}
