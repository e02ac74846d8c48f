package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker started {@code --tied} (as {@link OracleWorkers} starts each one) ends when the grader's end of its stdin
 * closes, which a SIGKILLed CLI's does: whether it still waits for the trusted side to open its FIFOs, or is busy in the
 * tree's code. bwrap's {@code --die-with-parent} alone left workers behind a CLI killed while a worker's launcher ran.
 * The real worker's source and interpreter, without a box (the tie is the worker's own).
 */
@Timeout(120)
class OracleWorkerTieTest {
    @TempDir Path dir;

    @Test
    void aWorkerWaitingForItsFifosEndsWithItsGrader() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Process p = start(tree);
        try {
            Thread.sleep(1000);
            assertThat(p.isAlive()).as("the worker waits for the trusted side").isTrue();
            p.getOutputStream().close(); // what the CLI's death does to the pipe
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the worker ended after its grader's end closed").isTrue();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aWorkerBusyInTheTreeEndsWithItsGrader() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("slow.py"), "import time\ntime.sleep(600)\n");
        Process p = start(tree);
        try (OutputStream req = Files.newOutputStream(dir.resolve("w1.in")); InputStream ans = Files.newInputStream(dir.resolve("w1.out"))) {
            frame(req, "{\"op\":\"init\",\"path\":[\"" + tree + "\"],\"cwd\":\"" + tree + "\"}");
            assertThat(answer(ans)).as("the worker serves").startsWith("[\"ok\"");
            frame(req, "{\"op\":\"imp\",\"name\":\"slow\"}");
            Thread.sleep(1000);
            assertThat(p.isAlive()).as("the worker is in the tree's import").isTrue();
            p.getOutputStream().close();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the worker ended after its grader's end closed").isTrue();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void anUntiedWorkerIgnoresItsStdin() throws Exception {
        // the pod's spawner starts workers without --tied and stdin of its own choosing: no tie there
        Path tree = Files.createDirectories(dir.resolve("tree"));
        WorkerFifos.mkfifo(dir.resolve("w1.in"), dir.resolve("w1.out"));
        Process p = new ProcessBuilder(python3(), "-I", "-B", "-c", OracleFiles.workerSource(), dir.resolve("w1.in").toString(),
                dir.resolve("w1.out").toString()).directory(tree.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            p.getOutputStream().close();
            assertThat(p.waitFor(2, TimeUnit.SECONDS)).as("an untied worker still waits for its FIFOs").isFalse();
        } finally {
            p.destroyForcibly();
        }
    }

    private Process start(Path tree) throws IOException, InterruptedException {
        WorkerFifos.mkfifo(dir.resolve("w1.in"), dir.resolve("w1.out"));
        return new ProcessBuilder(python3(), "-I", "-B", "-c", OracleFiles.workerSource(), dir.resolve("w1.in").toString(),
                dir.resolve("w1.out").toString(), "--tied").directory(tree.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static void frame(OutputStream out, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.US_ASCII);
        out.write(ByteBuffer.allocate(4).putInt(b.length).array());
        out.write(b);
        out.flush();
    }

    private static String answer(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] b = new byte[d.readInt()];
        d.readFully(b);
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static String python3() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assumeTrue(p.waitFor() == 0 && Files.isExecutable(Path.of(out)), "python3 is needed: " + out);
        return out;
    }
}
