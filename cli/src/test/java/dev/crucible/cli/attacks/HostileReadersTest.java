package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * Issue 34, point 1, reader by reader: every host-side component that reads or copies what an agent left
 * ({@link HostileReaders#ALL}) meets every hostile kind ({@link HostileKinds}) planted at the places it looks.
 * Each case must end within {@link #BOUND}, put no byte of the 0600 host file in anything it returns or writes,
 * take at most {@link #DISK_BOUND} of disk for what it writes, leave the host file as it was, throw no Error
 * (an OutOfMemoryError from reading a 2 GiB file whole, a StackOverflowError from a deep tree), and, where the
 * reader reports (findings, dropped paths, copy notes), name what it refused. A thrown exception passes only
 * when it names the planted path: a clear note, never a silent half-done result.
 */
@Tag("attacks")
class HostileReadersTest {
    static final Duration BOUND = Duration.ofSeconds(60);
    static final long DISK_BOUND = 64L << 20;

    @TestFactory
    Stream<DynamicTest> everyReaderMeetsEveryKind() {
        List<DynamicTest> tests = new ArrayList<>();
        // -Dhostile.only=monitor,derive runs the rows whose names start so
        List<String> only = Stream.of(System.getProperty("hostile.only", "").split(",")).filter(x -> !x.isBlank()).toList();
        // -Dhostile.readerUidOnly=true runs only the rows whose reader is the uid (with -Dattacks.before=JAR: an earlier build's readers)
        boolean readerUidOnly = Boolean.getBoolean("hostile.readerUidOnly");
        // each kind planted by an agent of the test's user (root in CI), then by the attack suite's throwaway uid
        for (Integer uid : readerUidOnly ? List.<Integer>of() : java.util.Arrays.asList(null, CliProcess.THROWAWAY_UID)) {
            for (HostileReaders.Reader r : HostileReaders.ALL) {
                if (!only.isEmpty() && only.stream().noneMatch(r.name()::startsWith)) continue;
                for (HostileKinds k : HostileKinds.values()) {
                    tests.add(DynamicTest.dynamicTest(r.name() + " × " + k.label + (uid == null ? "" : " (agent uid " + uid + ")"), () -> {
                        if (uid != null) assumeAgentUid(uid);
                        oneCase(r, k, uid);
                    }));
                }
            }
        }
        // the readers themselves as an unprivileged CLI user: a JVM of that uid per reader, its agent the same user
        for (int i = 0; i < HostileReaders.ALL.size(); i++) {
            HostileReaders.Reader r = HostileReaders.ALL.get(i);
            if (!only.isEmpty() && only.stream().noneMatch(r.name()::startsWith)) continue;
            int reader = i;
            for (HostileKinds k : HostileKinds.values()) {
                tests.add(DynamicTest.dynamicTest(r.name() + " × " + k.label + " (reader and agent uid " + CliProcess.THROWAWAY_UID + ")", () -> {
                    assumeAgentUid(CliProcess.THROWAWAY_UID);
                    String[] got = HostileReadersAsUser.result(reader, k, CliProcess.THROWAWAY_UID);
                    org.junit.jupiter.api.Assumptions.assumeFalse("SKIP".equals(got[0]), () -> "as uid " + CliProcess.THROWAWAY_UID + ": " + got[1]);
                    assertThat(got[0]).as("%s × %s, reader as uid %d: %s", r.name(), k.label, CliProcess.THROWAWAY_UID, got[1]).isEqualTo("PASS");
                }));
            }
        }
        if (!readerUidOnly && (only.isEmpty() || only.stream().anyMatch("snapshotter"::startsWith))) {
            tests.add(DynamicTest.dynamicTest("snapshotter process half (CRIU dump of a live agent) × every kind", HostileReadersTest::criuHalf));
        }
        return tests.stream();
    }

    /**
     * The snapshotter's other half, the CRIU dump and restore of the agent's processes (with whatever hostile file they hold
     * open), has no row that runs: a skip that says why, so a report never counts it as held.
     */
    private static void criuHalf() {
        boolean criu = dev.crucible.snapshot.criu.CriuBinary.find().isPresent();
        org.junit.jupiter.api.Assumptions.abort("not run: the snapshotter's CRIU half (process images) "
                + (criu ? "has no body here yet (CRIU is present on this machine)" : "cannot run on this machine: " + dev.crucible.snapshot.criu.CriuBinary.MISSING)
                + "; crucible run refuses --snapshot-every before anything runs (SnapshotRefusalTest), so local runs never dump an agent;"
                + " only the workspace half (the 'snapshotter workspace archive' row) is tested against the hostile kinds");
    }

    /** Skips the uid rows where this JVM cannot become that uid (not root, no setpriv). */
    static void assumeAgentUid(int uid) {
        org.junit.jupiter.api.Assumptions.assumeTrue(CliProcess.isRoot(), "the agent as uid " + uid + " needs this JVM to be root (setpriv)");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "the agent as uid " + uid + ": setpriv is missing");
    }

    /** One case in this JVM: as the test's user, or, run by {@link HostileReadersAsUser}, as the uid that JVM is. */
    static void oneCase(HostileReaders.Reader r, HostileKinds kind, Integer uid) throws Exception {
        try (HostileCase c = new HostileCase(uid)) {
            long t0 = System.nanoTime();
            // a thread of its own: a read blocked in open() cannot be interrupted, and the case must still fail
            CompletableFuture<String> run = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    run.complete(r.body().run(c, kind));
                } catch (Throwable e) {
                    run.completeExceptionally(e);
                }
            }, "hostile-reader");
            t.setDaemon(true);
            t.start();
            String said;
            try {
                said = run.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                StringBuilder stack = new StringBuilder();
                for (StackTraceElement s : t.getStackTrace()) stack.append("\n  at ").append(s);
                throw new AssertionError(r.name() + " × " + kind.label + ": still reading after " + BOUND.toSeconds() + " s:" + stack);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof org.opentest4j.TestAbortedException abort) throw abort;
                assertThat(cause).as("%s × %s threw an Error", r.name(), kind.label).isNotInstanceOf(Error.class);
                // a tree past PATH_MAX is the agent's to make and nobody's to copy: it is skipped and listed, the run goes on
                assertThat(kind).as("%s × %s failed instead of skipping the tree and listing it: %s", r.name(), kind.label, cause)
                        .isNotEqualTo(HostileKinds.DEEP_DIR);
                String msg = String.valueOf(cause.getMessage());
                // the planted path, or the folder holding it: a file that flips kind does so by replacing its folder's entry,
                // and tar reports that folder ("./.git: file changed as we read it")
                assertThat(HostileKinds.TARGETS.stream().anyMatch(target -> msg.contains(target) || msg.contains(folderOf(target))))
                        .as("%s × %s threw without naming the planted path or its folder: %s", r.name(), kind.label, cause).isTrue();
                said = "threw: " + msg;
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            String written = grep(c.marker, c.out);
            long disk = diskUse(c.out);
            String context = r.name() + " × " + kind.label + (uid == null ? "" : " [agent uid " + uid + "]") + " (" + seconds + " s): " + shorten(said);
            System.out.println("[hostile-readers] " + context.replace('\n', ' ') + " | out disk " + (disk >> 10) + " KiB");
            assertThat(said).as("what the reader said quotes the host file: " + context).doesNotContain(c.marker);
            if (!c.hardLinked) {
                // a hard link to a host file the agent could link is a file the agent could read: its bytes are the agent's
                assertThat(written).as("files the reader wrote that quote the host file: " + context).isEmpty();
            }
            assertThat(disk).as("disk taken by what the reader wrote: " + context).isLessThanOrEqualTo(DISK_BOUND);
            assertThat(c.secretNow()).as("the host file after the reader: " + context).isEqualTo(c.expectedSecret);
            if (r.names().contains(kind) && kind == HostileKinds.DEEP_DIR) {
                // what it said, not its files: an archive or a copy holds the deep folders' names as data
                assertThat(said).as("the reader names the skipped deep tree by its path prefix: %s", context)
                        .containsAnyOf("calc/evil.py/dd/dd/dd", "tests/conftest.py/dd/dd/dd");
            } else if (r.names().contains(kind)) {
                List<String> names = HostileKinds.TARGETS.stream().map(x -> x.substring(x.lastIndexOf('/') + 1)).toList();
                boolean named = false;
                for (String n : names) named |= said.contains(n) || !grep(n, c.out).isEmpty();
                assertThat(named).as("the reader names what it refused (one of %s): %s", names, context).isTrue();
            }
        }
    }

    /**
     * Files under {@code dir} holding {@code needle}: find, which neither follows links nor opens FIFOs or devices, runs
     * grep in each file's own folder (-execdir: paths past PATH_MAX, names Java cannot hold). A file with no block
     * allocated holds only zeros and is not read: grep took 41 s on each 2 GiB sparse copy. -z: lines end at NUL, so a run of
     * zeros is no 2 GiB line to buffer and grep skips holes (a 2 GiB sparse file with 3 bytes written: 68 s before, 6 ms).
     */
    static String grep(String needle, Path dir) throws Exception {
        Process p = new ProcessBuilder("find", dir.toString(), "-type", "f", "-execdir", "sh", "-c",
                "[ \"$(stat -c %b \"$1\")\" -gt 0 ] && grep -qaFz -- \"$2\" \"$1\" && printf '%s\\n' \"$PWD/$1\"", "sh", "{}", needle, ";")
                .redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(120, TimeUnit.SECONDS);
        return out.strip();
    }

    /** Bytes allocated under {@code dir} on the host's disk (du counts a sparse file's blocks, not its length). */
    static long diskUse(Path dir) throws Exception {
        Process p = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(120, TimeUnit.SECONDS);
        return Long.parseLong(out.trim().split("\\s+")[0]);
    }

    private static String shorten(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "…" : s;
    }

    /** "./.git: " for ".git/HEAD", "./: " for a file at the top: as tar and the readers name a folder. */
    private static String folderOf(String target) {
        int slash = target.lastIndexOf('/');
        return "./" + (slash < 0 ? "" : target.substring(0, slash)) + ":";
    }
}
