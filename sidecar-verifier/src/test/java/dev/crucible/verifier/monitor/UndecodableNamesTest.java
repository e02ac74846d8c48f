package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * File names that are not valid UTF-8 (issue 34): Linux names are bytes, Java's are strings, and a name
 * with a byte such as 0xff has no string that opens it again. The scans must still see such a file, and a
 * folder so named must not hide what is in it. The files are made by a real shell (Java cannot name them).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UndecodableNamesTest {
    private static final String HACK = "class Always:\n    __eq__ = lambda self, other: True\n";
    private static final VerifierSpec PYTEST = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    @TempDir
    Path dir;
    final List<Finding> got = new CopyOnWriteArrayList<>();
    HackMonitor monitor;

    @AfterEach
    void stop() throws InterruptedException {
        if (monitor == null) return;
        Thread t = new Thread(monitor::close);
        t.setDaemon(true);
        t.start();
        t.join(5000);
    }

    @Test
    void aHackInAFileOrFolderWhoseNameIsNotUtf8IsFoundLikeAnyOther() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def divide(a, b):\n    return a / b\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "from calc.ops import divide\n\ndef test_divide():\n    assert divide(4, 2) == 2\n");
        PristineSnapshot p = PristineSnapshot.take(ws, ProtectedPaths.of(PYTEST, true), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofHours(1), Duration.ofHours(1), "python3");
        monitor = new HackMonitor(cfg, got::add);
        monitor.start();
        Fixtures.write(ws.resolve("calc/plain.py"), HACK); // the same hack under a plain name: what the others must match
        // printf's octal escapes: 0377 and 0376 are not UTF-8; a literal backslash-x name must stay apart from them
        sh(ws, "printf '%s' \"$HACK\" > \"calc/$(printf 'bad\\377\\376.py')\"; mkdir \"$(printf 'calc/d\\377')\";"
                + " printf '%s' \"$HACK\" > \"$(printf 'calc/d\\377/inner.py')\"; printf 'x = 1\\n' > 'calc/lit\\xff.py'");
        monitor.scanNow();
        String detector = got.stream().filter(f -> "calc/plain.py".equals(f.path())).map(Finding::detector).findFirst().orElseThrow(
                () -> new AssertionError("no finding for the plain-named hack: " + got));
        assertThat(got).as("findings: " + got).anySatisfy(f -> {
            assertThat(f.path()).isEqualTo("calc/bad\\xff\\xfe.py");
            assertThat(f.detector()).isEqualTo(detector);
        });
        assertThat(got).as("findings: " + got).anySatisfy(f -> {
            assertThat(f.path()).isEqualTo("calc/d\\xff/inner.py");
            assertThat(f.detector()).isEqualTo(detector);
        });
        assertThat(got).noneSatisfy(f -> assertThat(f.path()).contains("lit"));
    }

    private static void sh(Path cwd, String script) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", script).directory(cwd.toFile()).inheritIO();
        pb.environment().put("HACK", HACK);
        assertThat(pb.start().waitFor()).isZero();
    }
}
