package dev.crucible.probe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.python.ProbePython;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code fixtures/bench_torch.py} as a worker with a Python that has torch (a venv outside
 * the repository; the server never needs it). The worker loads the same model once and then times
 * windows on request, so the Java side can alternate its windows with PyTorch's: on a shared
 * machine two back-to-back single runs measure the neighbours' load as much as the model. Finds
 * the interpreter with {@link ProbePython#find}.
 */
public final class TorchBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A running worker, or none and the one line saying why (torch missing, no PyTorch twin). */
    public record Started(Worker worker, String note) implements AutoCloseable {
        @Override
        public void close() {
            if (worker != null) {
                worker.close();
            }
        }
    }

    private final Path python;
    private final Path script;

    public TorchBench(Path python, Path script) {
        this.python = python;
        this.script = script;
    }

    /** Discovers python and the script (ProbePython's lookup). */
    public static TorchBench discover(Path explicitPython) {
        return new TorchBench(ProbePython.find(explicitPython), ProbePython.script("bench_torch.py"));
    }

    /** Starts the worker on {@code idsFile} (one sequence per line) and waits until it has warmed up. */
    public Started start(Path referenceDir, Path idsFile, ForwardBench.Options o) {
        String noPython = ProbePython.unusable(python);
        if (noPython != null) {
            return new Started(null, "torch unavailable: " + noPython);
        }
        if (script == null) {
            return new Started(null, "torch unavailable: probe-server/fixtures/bench_torch.py not found");
        }
        List<String> cmd = new ArrayList<>(List.of(python.toString(), script.toString(),
                "--reference", referenceDir.toAbsolutePath().toString(), "--ids", idsFile.toString(),
                "--threads", String.valueOf(o.threads()), "--device", o.device().name().toLowerCase()));
        Path err = null;
        Process p = null;
        try {
            err = Files.createTempFile("probe-bench-torch", ".err");
            // stderr to a file: transformers' progress bars must never block the worker on a full pipe
            p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            Worker w = new Worker(p, err);
            String ready = w.out.readLine();
            if (ready == null) {
                boolean done = p.waitFor(60, TimeUnit.SECONDS);
                String last = w.stderrTail();
                w.close();
                if (done && p.exitValue() == 3) {
                    // the reference has no PyTorch twin: timing another model would give a false ratio
                    return new Started(null, "torch side skipped: " + last);
                }
                return new Started(null, "torch unavailable: bench_torch.py failed: " + last);
            }
            JsonNode n = JSON.readTree(ready);
            w.shape = n.path("shape").path(0).asLong() + "x" + n.path("shape").path(1).asLong();
            w.idsSum = n.path("ids_sum").asLong();
            return new Started(w, "torch " + n.path("torch").asText() + " on " + n.path("device").asText()
                    + " (" + n.path("threads").asInt() + " threads), model " + n.path("model").asText("?"));
        } catch (IOException e) {
            if (p != null) {
                p.destroyForcibly();
            }
            return new Started(null, "torch unavailable: " + e.getMessage());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Started(null, "torch unavailable: interrupted");
        }
    }

    /** The worker process: one {@link #time} call per window, from one thread. */
    public static final class Worker implements AutoCloseable {
        private final Process process;
        private final Path stderr;
        private final BufferedReader out;
        private final Writer in;
        private String shape;
        private long idsSum;

        Worker(Process process, Path stderr) {
            this.process = process;
            this.stderr = stderr;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        /** The batch the worker read: "BATCHxLEN" and the sum of its ids, to check it is the Java side's. */
        public String shape() {
            return shape;
        }

        public long idsSum() {
            return idsSum;
        }

        /** Times PyTorch for at least {@code seconds} (and two passes): wall and CPU tokens/s. */
        public ForwardBench.Sample time(double seconds) throws IOException {
            in.write("run " + seconds + "\n");
            in.flush();
            String line = out.readLine();
            if (line == null) {
                throw new IOException("bench_torch.py exited mid-run: " + stderrTail());
            }
            JsonNode n = JSON.readTree(line);
            return new ForwardBench.Sample(n.get("tokens_s").asDouble(), n.get("cpu_tokens_s").asDouble());
        }

        String stderrTail() {
            try {
                String s = Files.readString(stderr, StandardCharsets.UTF_8).strip();
                return s.substring(Math.max(0, s.length() - 300));
            } catch (IOException e) {
                return "(stderr unreadable: " + e.getMessage() + ")";
            }
        }

        @Override
        public void close() {
            try {
                in.write("quit\n");
                in.close();
            } catch (IOException ignored) {
                // the worker is gone already
            }
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            try {
                Files.deleteIfExists(stderr);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
