package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The grader's end of the result channel with real processes: what arrives, and that nothing makes it hang. */
class ResultChannelTest {
    @TempDir
    Path dir;

    private ExecResult run(ResultChannel ch, String script) {
        return new LocalExecutor().run(new ExecRequest(List.of("/bin/sh", "-c", script), dir, Map.of(), false, Duration.ofSeconds(20),
                4096, null, true, ch.path()));
    }

    @Test
    void linesWrittenOnFd3ArriveInOrder() {
        ResultChannel ch = ResultChannel.open(dir);
        ExecResult r = run(ch, "printf 'one\\ntwo\\n' >&3; printf 'three\\nunterminated' >&3; echo done");
        ResultChannel.Lines lines = ch.finish(2_000);
        assertThat(r.stdout()).contains("done");
        assertThat(lines.lines()).containsExactly("one", "two", "three", "");
        assertThat(lines.stillOpen()).isFalse();
        assertThat(ch.nonce()).hasSize(32);
    }

    @Test
    void aCommandThatNeverStartsDoesNotHangTheGrader() {
        ResultChannel ch = ResultChannel.open(dir);
        ExecResult r = new LocalExecutor().run(new ExecRequest(List.of("/nonexistent/binary"), dir, Map.of(), false, Duration.ofSeconds(5),
                4096, null, true, ch.path()));
        long t0 = System.nanoTime();
        ResultChannel.Lines lines = ch.finish(2_000);
        assertThat(r.ok()).isFalse();
        assertThat(lines.lines()).isEmpty();
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1_500);
    }

    @Test
    void aLeftoverWriterIsGivenUpOnAndReported() throws Exception {
        ResultChannel ch = ResultChannel.open(dir);
        Path pid = dir.resolve("pid");
        run(ch, "setsid sh -c 'echo $$ > " + pid + "; echo late >&3; exec sleep 30' & sleep 0.5; echo early >&3");
        long t0 = System.nanoTime();
        ResultChannel.Lines lines = ch.finish(500);
        try {
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1_500);
            assertThat(lines.stillOpen()).isTrue();
            assertThat(lines.lines()).contains("early");
        } finally {
            ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
