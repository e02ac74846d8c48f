package dev.crucible.verifier.monitor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One running {@code source_rules --serve} process: a request line in, an answer line out. Starting
 * Python and compiling the helper cost more than analysing a few changed files, so the monitor keeps
 * one per episode (started at reset) instead of one per scan. A reader thread collects answer lines; an
 * answer that does not come in time, a line over {@link #MAX_LINE_BYTES} or an exited process make the
 * helper dead, and its owner starts a new one for the next request.
 */
final class SyntaxHelper {
    static final int MAX_LINE_BYTES = 64 << 20;
    private static final byte[] EOF = new byte[0];
    private final Process process;
    private final OutputStream in;
    private final LinkedBlockingQueue<byte[]> answers = new LinkedBlockingQueue<>();
    private volatile boolean dead;

    private SyntaxHelper(Process process) {
        this.process = process;
        this.in = process.getOutputStream();
        Thread reader = new Thread(this::read, "syntax-helper-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code python -I -S -B HELPER --serve} ({@link SourceRulesFiles#commandLine}) with an empty environment but PATH. */
    static SyntaxHelper start(String python, List<String> helper) throws IOException {
        List<String> argv = new ArrayList<>(List.of(python, "-I", "-S", "-B"));
        argv.addAll(helper);
        argv.add("--serve");
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        return new SyntaxHelper(pb.start());
    }

    boolean alive() { return !dead && process.isAlive(); }

    /** Sends one request line and waits up to {@code timeoutMs} for its answer; empty (and dead) on any failure. */
    Optional<byte[]> ask(byte[] requestLine, long timeoutMs) {
        if (!alive()) return Optional.empty();
        try {
            in.write(requestLine);
            in.write('\n');
            in.flush();
            byte[] answer = answers.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (answer != null && answer != EOF) return Optional.of(answer);
        } catch (IOException e) {
            // the process died: fall through
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
        return Optional.empty();
    }

    void kill() {
        dead = true;
        process.destroyForcibly();
    }

    private void read() {
        try (InputStream out = process.getInputStream()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            int n;
            while ((n = out.read(buf)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') continue;
                    line.write(buf, start, i - start);
                    answers.add(line.toByteArray());
                    line.reset();
                    start = i + 1;
                }
                line.write(buf, start, n - start);
                if (line.size() > MAX_LINE_BYTES) break;
            }
        } catch (IOException e) {
            // closed or killed
        }
        dead = true;
        answers.add(EOF);
    }
}
