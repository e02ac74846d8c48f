package dev.crucible.verifier.bench;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Grading overhead: the environment's test command run bare in the workspace (same interpreter
 * first on PATH, so only grading's own work differs) against a full verify (kill sweep, grading tree
 * from pristine, hardened pytest, report parsing), medians over N runs; plus the monitor thread's
 * CPU time over wall time while an agent works in the workspace.
 */
public final class GradingBench {
    private GradingBench() {}

    /** {@code gradingSandbox}: "box" when graded commands ran in the grading sandbox, as in a real run; else why not. */
    public record Result(double bareSeconds, double gradedSeconds, double overheadRatio, double monitorCpuPct, int runs, String python,
                         String gradingSandbox) {
        public String line() {
            return String.format(Locale.ROOT, "bare_s=%.3f graded_s=%.3f overhead_ratio=%.3f monitor_cpu_pct=%.3f grading=%s",
                    bareSeconds, gradedSeconds, overheadRatio, monitorCpuPct, gradingSandbox);
        }
    }

    public static Result run(Environment env, Path workspace, int runs, Duration monitorWindow) {
        Path tmp;
        try {
            tmp = Files.createTempDirectory("crucible-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path ws = tmp.resolve("workspace");
        copy(workspace, ws);
        EpisodeOptions opts = EpisodeOptions.defaults().withStateDir(tmp.resolve("state"));
        // Graded as a real run grades: each graded command in its own box (the bare run is the command alone).
        boolean boxed = Box.availability().ok();
        if (boxed) opts = opts.withGradingExecutor(new GradingSandbox(BoxLimits.defaults()));
        try (Episode ep = new Episode(env, ws, opts)) {
            ResetResult reset = ep.reset();
            String pyDir = reset.python() == null ? "" : Path.of(reset.python()).getParent() + ":";
            Map<String, String> bareEnv = Map.of("PATH", pyDir + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            // Warm-up: the first run pays for cold caches on both sides.
            bare(env, ws, bareEnv);
            // Monitor cost: its thread's CPU over a window in which an agent keeps running the tests.
            long monitorCpu0 = ep.monitor().cpuNanos();
            long wall0 = System.nanoTime();
            do {
                bare(env, ws, bareEnv);
            } while (System.nanoTime() - wall0 < monitorWindow.toNanos());
            double cpuPct = 100.0 * (ep.monitor().cpuNanos() - monitorCpu0) / (System.nanoTime() - wall0);
            ep.verify();
            // Bare and graded runs alternate so that load from elsewhere on the machine hits both alike.
            List<Double> bare = new ArrayList<>();
            List<Double> graded = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                bare.add(bare(env, ws, bareEnv));
                ep.reset();
                long t0 = System.nanoTime();
                ep.verify();
                graded.add((System.nanoTime() - t0) / 1e9);
            }
            double b = median(bare);
            double g = median(graded);
            return new Result(b, g, g / b, cpuPct, runs, reset.python(), boxed ? "box" : "unconfined");
        } finally {
            deleteQuietly(tmp);
        }
    }

    private static double bare(Environment env, Path ws, Map<String, String> envVars) {
        ExecRequest req = new ExecRequest(List.of("/bin/sh", "-c", env.verifier().command()), ws, envVars, false,
                Duration.ofSeconds(env.verifier().timeoutOrDefault()), 1 << 20, null, true);
        ExecResult r = new LocalExecutor().run(req);
        return r.elapsedMs() / 1e3;
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static void copy(Path src, Path dst) {
        try (var s = Files.walk(src)) {
            for (Path p : s.toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else if (!p.toString().contains("__pycache__")) Files.copy(p, t);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException ignored) {
            // temp files; the OS cleans up
        }
    }

}
