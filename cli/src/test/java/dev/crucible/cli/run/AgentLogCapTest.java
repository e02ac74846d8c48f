package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * agent.log has a cap (issue 34): a real agent process that prints 96 MiB, in lines and without a single
 * newline, leaves a log of its first and last bytes with one line saying how much was cut, never the whole.
 */
class AgentLogCapTest {
    private static final long MIB = 1L << 20;
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void anEndlessOutputKeepsItsHeadAndTailAndSaysWhatWasCut() throws Exception {
        String script = "echo FIRST-LINE; yes 'flood line ......................................' | head -c 96M; echo; echo LAST-LINE";
        Path log = run(script);
        long size = Files.size(log);
        assertThat(size).as("agent.log after 96 MiB of output").isLessThanOrEqualTo(AgentLog.HEAD + AgentLog.TAIL + 4096);
        String head = read(log, 0, 64);
        String tail = read(log, size - 64, 64);
        assertThat(head).startsWith("FIRST-LINE\n");
        assertThat(tail).endsWith("\nLAST-LINE\n");
        String middle = read(log, AgentLog.HEAD, 300);
        long total = 11 + 96 * MIB + 1 + 10;
        assertThat(middle).contains("[crucible: " + (total - AgentLog.HEAD - AgentLog.TAIL) + " bytes of the agent's output cut here;")
                .contains("of " + total + " bytes]");
    }

    @Test
    @Timeout(120)
    void anOutputWithoutNewlinesIsCutToo() throws Exception {
        Path log = run("head -c 40M /dev/zero | tr '\\0' b >&2; head -c 40M /dev/zero | tr '\\0' a");
        assertThat(Files.size(log)).isLessThanOrEqualTo(AgentLog.HEAD + AgentLog.TAIL + 4096);
        assertThat(read(log, 0, 16)).isEqualTo("b".repeat(16));
        assertThat(read(log, Files.size(log) - 16, 16)).isEqualTo("a".repeat(16));
    }

    @Test
    @Timeout(60)
    void aShortOutputIsKeptWhole() throws Exception {
        String script = "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done";
        Path log = run(script);
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < 2000; i++) want.append("line ").append(i).append('\n');
        assertThat(Files.readString(log)).isEqualTo(want.toString());
    }

    @Test
    @Timeout(60)
    void aLongOutputJustOverTheHeadIsKeptWholeWithoutAMark() throws Exception {
        Path log = run("head -c " + (AgentLog.HEAD + MIB) + " /dev/zero | tr '\\0' c");
        assertThat(Files.size(log)).isEqualTo(AgentLog.HEAD + MIB);
        assertThat(Files.readString(log)).doesNotContain("[crucible:");
    }

    /** Runs {@code sh -c script} as the agent (no box: the cap is the host's, not the sandbox's) and waits for its log. */
    private Path run(String script) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path log = dir.resolve("agent.log");
        AgentProcesses.Started s = AgentProcesses.start(new Unconfined(dir.resolve("home"), "a test"), List.of("/bin/sh", "-c", script), ws,
                Map.of("PATH", "/usr/bin:/bin"), log);
        assertThat(s.process().waitFor(90, TimeUnit.SECONDS)).isTrue();
        s.log().finish(Duration.ofSeconds(10));
        return log;
    }

    private static String read(Path f, long at, int n) throws Exception {
        try (var ch = java.nio.channels.FileChannel.open(f)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(n);
            ch.read(b, at);
            return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
        }
    }
}
