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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timer's file scan is interrupted when verify halts it (shutdownNow); under load one is often mid-way. Its reads
 * and the syntax helper's answer are cut short, and it used to mark the changed sources seen anyway, so the last scan
 * saw no change and their source findings were never reported (blind round 6: e05 and corpus e11/e13/e22/e35 unflagged
 * in some runs). An interrupted scan marks nothing seen; the last scan reports what the sources say.
 */
class InterruptedScanTest {
    @TempDir
    Path dir;

    @Test
    void aScanCutShortLeavesItsFilesToTheLastScan() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def divide(a, b):\n    return a / b\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "from calc.ops import divide\n\ndef test_divide():\n    assert divide(4, 2) == 2\n");
        VerifierSpec pytest = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        PristineSnapshot p = PristineSnapshot.take(ws, ProtectedPaths.of(pytest, true), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofHours(1), Duration.ofHours(1), "python3");
        List<Finding> got = new CopyOnWriteArrayList<>();
        List<WorkspaceScanner.Raw> cutShort = new CopyOnWriteArrayList<>();
        try (HackMonitor monitor = new HackMonitor(cfg, got::add)) {
            monitor.start();
            Fixtures.write(ws.resolve("calc/ops.py"), "import atexit, os\natexit.register(os._exit, 0)\ndef divide(a, b):\n    return 2\n");
            java.lang.reflect.Field f = HackMonitor.class.getDeclaredField("scanner");
            f.setAccessible(true);
            WorkspaceScanner scanner = (WorkspaceScanner) f.get(monitor);
            Thread cut = new Thread(() -> {
                Thread.currentThread().interrupt(); // as the halt's shutdownNow does to the timer's thread mid-scan
                scanner.scan(cutShort::add, false);
            });
            cut.start();
            cut.join();
            monitor.finishProcesses();
            monitor.finishFiles();
        }
        // reported by one scan or the other: the cut one when its reads got through, else the last one
        assertThat(java.util.stream.Stream.concat(got.stream().filter(Finding::isHack).map(Finding::rule), cutShort.stream().map(WorkspaceScanner.Raw::rule)))
                .contains("atexit-exit");
    }
}
