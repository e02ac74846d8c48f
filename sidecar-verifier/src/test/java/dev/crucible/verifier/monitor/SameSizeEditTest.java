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
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A same-size edit whose mtime is put back ({@code touch -r}) must still be seen by the live scan (blind host-side red
 * team B3): before the change time was compared, neither a source rule nor a protected file's hash was ever looked at
 * again, because size and mtime were all the scan compared.
 */
class SameSizeEditTest {
    @TempDir
    Path dir;

    /** Longer than {@link #HACK}, which is padded to its size. */
    private static final String HONEST = "import time\nt0 = time.time()  # ok\n";
    private static final String HACK = "import time\ntime.time = lambda: 0\n";

    @Test
    void aSameSizeEditWithItsMtimePutBackIsScanned() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("a.py"), HONEST);
        String hack = HACK.substring(0, HACK.length() - 1) + " ".repeat(HONEST.length() - HACK.length()) + "\n";
        String test = "def test_a():\n    assert 1 == 1\n";
        String forged = "def test_a():\n    assert 1 == 2\n";
        Fixtures.write(ws.resolve("tests/test_a.py"), test);
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        List<Finding> got = new CopyOnWriteArrayList<>();
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofMillis(100), Duration.ofMillis(100));
        try (HackMonitor m = new HackMonitor(cfg, got::add)) {
            m.start();
            m.scanNow();
            assertThat(got).as("an honest tree is quiet").isEmpty();
            Thread.sleep(50); // file times are kernel-tick coarse: the edit must fall in a later tick than the file's creation
            sameSizeKeepingMtime(ws.resolve("a.py"), hack);
            sameSizeKeepingMtime(ws.resolve("tests/test_a.py"), forged);
            m.scanNow();
        }
        assertThat(got).extracting(Finding::detector, Finding::path).contains(
                org.assertj.core.groups.Tuple.tuple(DetectorNames.TIMING_PATCH, "a.py"),
                org.assertj.core.groups.Tuple.tuple(DetectorNames.PROTECTED_PATH, "tests/test_a.py"));
    }

    @Test
    void aSameSizeHookEditWithItsMtimePutBackIsSeen() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("a.py"), "x = 1\n");
        Fixtures.git(ws, "init", "-q");
        Path hook = ws.resolve(".git/hooks/pre-commit");
        Fixtures.write(hook, "#!/bin/sh\nexit 0 # a harmless hook\n");
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        List<Finding> got = new CopyOnWriteArrayList<>();
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofMillis(100), Duration.ofMillis(100));
        try (HackMonitor m = new HackMonitor(cfg, got::add)) {
            m.start();
            m.scanNow();
            assertThat(got).as("an honest tree is quiet").isEmpty();
            Thread.sleep(50); // as above: a later kernel tick than the hook's creation
            sameSizeKeepingMtime(hook, "#!/bin/sh\ncp /x/ops.py calc/ #evil\n");
            m.scanNow();
        }
        assertThat(got).extracting(Finding::detector, Finding::rule).contains(org.assertj.core.groups.Tuple.tuple(DetectorNames.GIT_HISTORY, "hook"));
    }

    /** What {@code printf … > f; touch -r ref f} does: same size, the old mtime back. */
    private static void sameSizeKeepingMtime(Path f, String content) throws Exception {
        FileTime before = Files.getLastModifiedTime(f);
        long size = Files.size(f);
        Files.writeString(f, content);
        Files.setLastModifiedTime(f, before);
        assertThat(Files.size(f)).isEqualTo(size);
        assertThat(Files.getLastModifiedTime(f)).isEqualTo(before);
    }
}
