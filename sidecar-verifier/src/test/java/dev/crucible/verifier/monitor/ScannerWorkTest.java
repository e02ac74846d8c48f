package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan after each step reads only what changed (issue 38's step overhead): a quiet step reads no file, a chown or chmod
 * (the change time moves, the content does not) is hashed and is no edit, while an edit whose mtime was put back, deep in a
 * folder nothing else changed in, is read and judged; in a tree of 100,000 files a step reads the one file it changed.
 * The timer's scans are kept out of the way (an hour apart) so each figure is the step's own scan.
 */
class ScannerWorkTest {
    @TempDir Path dir;

    private static final String HONEST = "import time\nt0 = time.time()  # ok\n";
    /** {@link #HONEST}'s size: a same-size edit. */
    private static final String HACK = "import time\ntime.time = lambda: 0 \n";

    /** What the trajectory would record: each changed file's path and operation. */
    private static final class Changes implements MonitorObserver {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public void fileChanged(String path, String op, String type, long size, Instant modified, String sha256, byte[] content) {
            seen.add(op + " " + path);
        }
    }

    private HackMonitor monitor(Path ws, List<Finding> got) {
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**", "**/tests/**", "pytest.ini")), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofHours(1), Duration.ofMillis(100));
        return new HackMonitor(cfg, got::add);
    }

    @Test
    void aQuietStepReadsNothingAndAChmodIsNoEdit() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), HONEST);
        Fixtures.write(ws.resolve("tests/test_ops.py"), "def test_a():\n    assert 1 == 1\n");
        Fixtures.write(ws.resolve("pytest.ini"), "[pytest]\n");
        Fixtures.write(ws.resolve("notes.txt"), "notes\n");
        assertThat(HONEST).hasSameSizeAs(HACK);
        List<Finding> got = new CopyOnWriteArrayList<>();
        Changes changes = new Changes();
        try (HackMonitor m = monitor(ws, got)) {
            m.start();
            m.observe(changes);
            m.scanAfterStep();
            assertThat(m.lastScanReads()).as("a quiet step reads no file").isZero();
            assertThat(changes.seen).isEmpty();

            Thread.sleep(50); // file times are kernel-tick coarse: the change must fall in a later tick than the files' creation
            chmodAll(ws, "rw-rw-r--");
            m.scanAfterStep();
            assertThat(m.lastScanReads()).as("each file whose change time moved is hashed").isEqualTo(4);
            // notes.txt had no hash at reset (neither a source nor protected): its first metadata change reads as a change, once
            assertThat(changes.seen).containsExactly("modified notes.txt");
            changes.seen.clear();

            Thread.sleep(50);
            chmodAll(ws, "rw-r--r--");
            m.scanAfterStep();
            assertThat(changes.seen).as("a chmod changes no content: nothing to record").isEmpty();
            assertThat(got).as("nor anything to find").isEmpty();

            Thread.sleep(50);
            sameSizeKeepingMtime(ws.resolve("calc/ops.py"), HACK); // printf … > f; touch -d @OLD f
            m.scanAfterStep();
            assertThat(m.lastScanReads()).isEqualTo(1);
            assertThat(changes.seen).containsExactly("modified calc/ops.py");
        }
        assertThat(got).extracting(Finding::detector, Finding::path).containsExactly(Tuple.tuple(DetectorNames.TIMING_PATCH, "calc/ops.py"));
    }

    @Test
    void anEditDeepInAnUnchangedFolderIsSeen() throws Exception {
        Path ws = dir.resolve("ws");
        String deep = "a/b/c/d/e/f/g/h/clock.py";
        Fixtures.write(ws.resolve(deep), HONEST);
        Fixtures.write(ws.resolve("a/b/c/d/e/f/g/h/tests/test_clock.py"), "def test_a():\n    assert True\n");
        List<Finding> got = new CopyOnWriteArrayList<>();
        try (HackMonitor m = monitor(ws, got)) {
            m.start();
            FileTime folder = Files.getLastModifiedTime(ws.resolve(deep).getParent());
            Thread.sleep(50);
            sameSizeKeepingMtime(ws.resolve(deep), HACK); // rewritten in place: no folder's mtime moves
            sameSizeKeepingMtime(ws.resolve("a/b/c/d/e/f/g/h/tests/test_clock.py"), "def test_a():\n    assert 1==1\n");
            assertThat(Files.getLastModifiedTime(ws.resolve(deep).getParent())).isEqualTo(folder);
            m.scanAfterStep();
            assertThat(m.lastScanReads()).isEqualTo(2);
        }
        assertThat(got).extracting(Finding::detector, Finding::path).contains(
                Tuple.tuple(DetectorNames.TIMING_PATCH, deep), Tuple.tuple(DetectorNames.PROTECTED_PATH, "a/b/c/d/e/f/g/h/tests/test_clock.py"));
    }

    /** The hostile tree: 100,000 files. A step pays one stat walk of it (printed) and reads only the file it changed. */
    @Test
    void aStepInAHundredThousandFileTreeReadsWhatChanged() throws Exception {
        Path ws = dir.resolve("ws");
        long t0 = System.nanoTime();
        for (int d = 0; d < 100; d++) { // links to a file per folder: a tree's entries at a fraction of the cost of files of their own
            Path folder = Files.createDirectories(ws.resolve("data/d" + d));
            Path first = Files.writeString(folder.resolve("f0.txt"), "x");
            for (int f = 1; f < 1000; f++) Files.createLink(folder.resolve("f" + f + ".txt"), first);
        }
        long made = System.nanoTime() - t0;
        String deep = "data/d57/pkg/deep/clock.py";
        Fixtures.write(ws.resolve(deep), HONEST);
        List<Finding> got = new CopyOnWriteArrayList<>();
        try (HackMonitor m = monitor(ws, got)) {
            m.start();
            t0 = System.nanoTime();
            m.scanAfterStep();
            long quiet = System.nanoTime() - t0;
            assertThat(m.lastScanReads()).isZero();
            Thread.sleep(50);
            sameSizeKeepingMtime(ws.resolve(deep), HACK);
            t0 = System.nanoTime();
            m.scanAfterStep();
            long edited = System.nanoTime() - t0;
            assertThat(m.lastScanReads()).isEqualTo(1);
            System.out.printf("scan after a step, 100,001 files: quiet %.1f ms, one edit %.1f ms (tree made in %.1f s; load %.1f)%n",
                    quiet / 1e6, edited / 1e6, made / 1e9, java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
        assertThat(got).extracting(Finding::detector, Finding::path).containsExactly(Tuple.tuple(DetectorNames.TIMING_PATCH, deep));
    }

    /** A site folder is listed again only when its own or a hook's lstat moved: each of these still shows. */
    @Test
    void aSiteHookAddedOrRewrittenBetweenStepsIsSeen() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("a.py"), "x = 1\n");
        Path site = Files.createDirectories(dir.resolve("site-packages"));
        Files.writeString(site.resolve("honest.pth"), "/opt/lib\n");
        Files.writeString(site.resolve("six.py"), "x = 1\n");
        List<Finding> got = new CopyOnWriteArrayList<>();
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(site), Set.of("json"),
                Duration.ofHours(1), Duration.ofMillis(100));
        try (HackMonitor m = new HackMonitor(cfg, got::add)) {
            m.start();
            m.scanAfterStep();
            m.scanAfterStep();
            assertThat(got).isEmpty();
            Thread.sleep(50);
            Files.writeString(site.resolve("six.py"), "x = 2\n"); // not a hook: the folder's times stay, nothing to find
            m.scanAfterStep();
            assertThat(got).isEmpty();
            Files.writeString(site.resolve("honest.pth"), "import os; os.system('x')\n"); // in place: the folder's times stay
            m.scanAfterStep();
            assertThat(got).extracting(Finding::path).containsExactly(site.resolve("honest.pth").toString());
            Files.writeString(site.resolve("zz.pth"), "import sys\n");
            m.scanAfterStep();
        }
        assertThat(got).extracting(Finding::detector, Finding::path).containsExactly(
                Tuple.tuple(DetectorNames.STARTUP_HOOK, site.resolve("honest.pth").toString()),
                Tuple.tuple(DetectorNames.STARTUP_HOOK, site.resolve("zz.pth").toString()));
    }

    private static void chmodAll(Path ws, String perms) throws Exception {
        try (var s = Files.walk(ws)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        }
    }

    /** What {@code printf … > f; touch -d @OLD f} does: same size, the old mtime back (the change time still moves). */
    private static void sameSizeKeepingMtime(Path f, String content) throws Exception {
        FileTime before = Files.getLastModifiedTime(f);
        long size = Files.size(f);
        Files.writeString(f, content);
        Files.setLastModifiedTime(f, before);
        assertThat(Files.size(f)).isEqualTo(size);
        assertThat(Files.getLastModifiedTime(f)).isEqualTo(before);
    }
}
