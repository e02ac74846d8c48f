package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.grade.result.JUnitXmlParser;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JUnit report cut short on a volume with no room left (pytest's write failed: a workspace that filled its disk limit)
 * is no hack: info, and no test counts. The same cut report on a volume with room is tampering (high), as before.
 */
class UnreadableReportTest {
    private static final String CUT = "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\" tests=\"1\"><testcase";

    @Test
    void aReportCutShortOnAFullVolumeIsNotAHackButCountsNothing(@TempDir Path dir) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt.toString()) == 0,
                "mounting a small tmpfs needs root (CAP_SYS_ADMIN); the full-volume case is not tested here");
        try {
            Path junit = mnt.resolve("junit-1.xml");
            try (OutputStream out = Files.newOutputStream(mnt.resolve("fill"))) { // what a workspace's big files do
                byte[] mib = new byte[64 << 10];
                while (true) out.write(mib);
            } catch (IOException full) {
                // ENOSPC: the volume is full
            }
            Files.writeString(junit, ""); // an empty file, as pytest leaves it when its write fails
            Exception e = parseError(junit);
            IntegrityFinding f = UnreadableReport.finding(junit, e);
            assertThat(f.severity()).isEqualTo("info");
            assertThat(f.voidsResults()).isFalse();
            assertThat(f.evidence()).contains("bytes free", "disk limit");
            List<TestCase> tests = UnreadableReport.distrust(List.of(new TestCase("t.py::test_a", TestStatus.PASSED, null, 1L, null)), List.of(f));
            assertThat(tests).singleElement().satisfies(t -> {
                assertThat(t.status()).isEqualTo(TestStatus.UNTRUSTED);
                assertThat(t.message()).contains("could not be written");
            });
        } finally {
            run("umount", mnt.toString());
        }
    }

    @Test
    void aReportCutShortWhereThereIsRoomIsTampering(@TempDir Path dir) throws Exception {
        Path junit = dir.resolve("junit-1.xml");
        Files.writeString(junit, CUT);
        IntegrityFinding f = UnreadableReport.finding(junit, parseError(junit));
        assertThat(f.severity()).isEqualTo("high");
        assertThat(f.evidence()).startsWith("pytest's JUnit report is unreadable");
        List<TestCase> passed = List.of(new TestCase("t.py::test_a", TestStatus.PASSED, null, 1L, null));
        assertThat(UnreadableReport.distrust(passed, List.of(f))).isEqualTo(passed); // voided by the high finding instead
    }

    private static Exception parseError(Path junit) {
        try {
            JUnitXmlParser.parse(junit, true);
        } catch (IOException | RuntimeException e) {
            return e;
        }
        throw new AssertionError("a cut report parsed");
    }

    private static int run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }
}
