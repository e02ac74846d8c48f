package dev.crucible.probe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.python.ProbePython;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code fixtures/bench_torch.py} with a Python that has torch (a venv outside the repository;
 * the server never needs it) so both figures come from the same run on the same machine. Finds the
 * interpreter with {@link ProbePython#find}.
 */
public final class TorchBench {
    /** tokensPerSecond is NaN when torch could not be run; note says why. */
    public record Result(double tokensPerSecond, String note) {
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

    public Result run(Path referenceDir, ForwardBench.Options o) {
        String noPython = ProbePython.unusable(python);
        if (noPython != null) {
            return new Result(Double.NaN, "torch unavailable: " + noPython);
        }
        if (script == null) {
            return new Result(Double.NaN, "torch unavailable: probe-server/fixtures/bench_torch.py not found");
        }
        List<String> cmd = new ArrayList<>(List.of(python.toString(), script.toString(),
                "--reference", referenceDir.toAbsolutePath().toString(), "--batch", String.valueOf(o.batch()),
                "--seq", String.valueOf(o.seqLen()), "--seconds", String.valueOf(o.seconds()),
                "--threads", String.valueOf(o.threads()), "--device", o.device().name().toLowerCase()));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                String last = err.strip();
                last = last.substring(Math.max(0, last.length() - 300));
                if (p.exitValue() == 3) {
                    // the reference has no PyTorch twin: timing another model would give a false ratio
                    return new Result(Double.NaN, "torch side skipped: " + last);
                }
                return new Result(Double.NaN, "torch unavailable: bench_torch.py failed: " + last);
            }
            String text = new String(out, StandardCharsets.UTF_8).strip();
            String json = text.substring(text.lastIndexOf('\n') + 1);
            JsonNode n = new ObjectMapper().readTree(json);
            return new Result(n.get("tokens_s").asDouble(), "torch " + n.path("torch").asText() + " on "
                    + n.path("device").asText() + ", model " + n.path("model").asText("?"));
        } catch (IOException e) {
            return new Result(Double.NaN, "torch unavailable: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(Double.NaN, "torch unavailable: interrupted");
        }
    }
}
