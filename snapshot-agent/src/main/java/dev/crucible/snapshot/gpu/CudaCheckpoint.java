package dev.crucible.snapshot.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * NVIDIA's cuda-checkpoint utility (github.com/NVIDIA/cuda-checkpoint), driver >= 550.
 * With driver >= 570 it has separate actions: {@code --action lock|checkpoint|restore|unlock
 * --pid P [--timeout MS]} (the timeout applies to lock) and {@code --get-state --pid P}; older
 * ones only {@code --toggle --pid P}. Found via system property {@code crucible.cudaCheckpoint},
 * env {@code CRUCIBLE_CUDA_CHECKPOINT}, or PATH.
 */
public final class CudaCheckpoint {

    public static final String MISSING = "no NVIDIA GPU / cuda-checkpoint not found (set CRUCIBLE_CUDA_CHECKPOINT or put it on PATH)";

    private final Path path;
    private final boolean hasActions;

    CudaCheckpoint(Path path, boolean hasActions) {
        this.path = path;
        this.hasActions = hasActions;
    }

    public static Optional<CudaCheckpoint> find() {
        List<Path> candidates = new ArrayList<>();
        String prop = System.getProperty("crucible.cudaCheckpoint");
        if (prop != null) {
            candidates.add(Path.of(prop));
        }
        String env = System.getenv("CRUCIBLE_CUDA_CHECKPOINT");
        if (env != null) {
            candidates.add(Path.of(env));
        }
        String pathEnv = System.getenv("PATH");
        if (pathEnv != null) {
            for (String dir : pathEnv.split(":")) {
                candidates.add(Path.of(dir.isEmpty() ? "." : dir, "cuda-checkpoint"));
            }
        }
        for (Path c : candidates) {
            if (Files.isExecutable(c)) {
                String help = exec(List.of(c.toString(), "--help"), 10).output();
                return Optional.of(new CudaCheckpoint(c, help.contains("--action")));
            }
        }
        return Optional.empty();
    }

    /** True where a GPU and a driver exist (the device nodes are there). */
    public static boolean gpuPresent() {
        return Files.exists(Path.of("/dev/nvidiactl")) || Files.exists(Path.of("/dev/nvidia0"));
    }

    public boolean hasActions() {
        return hasActions;
    }

    /** Command lines, kept pure so they can be checked without a GPU. */
    public List<String> lockCommand(long pid, long timeoutMs) {
        return List.of(path.toString(), "--action", "lock", "--pid", Long.toString(pid), "--timeout", Long.toString(timeoutMs));
    }

    public List<String> actionCommand(String action, long pid) {
        return List.of(path.toString(), "--action", action, "--pid", Long.toString(pid));
    }

    public List<String> toggleCommand(long pid) {
        return List.of(path.toString(), "--toggle", "--pid", Long.toString(pid));
    }

    public List<String> stateCommand(long pid) {
        return List.of(path.toString(), "--get-state", "--pid", Long.toString(pid));
    }

    /** "running", "locked", "checkpointed" or "failed" as the tool prints it. */
    public String state(long pid) {
        Exec r = exec(stateCommand(pid), 30);
        return r.status() == 0 ? r.output().trim() : "unknown";
    }

    /** Lock CUDA APIs (bounded wait), then copy device memory to host and release the GPU. */
    public void suspend(long pid, long lockTimeoutMs) {
        if (hasActions) {
            run(lockCommand(pid, lockTimeoutMs), "lock", pid);
            try {
                run(actionCommand("checkpoint", pid), "checkpoint", pid);
            } catch (GpuCheckpointException e) {
                exec(actionCommand("unlock", pid), 60);
                throw e;
            }
        } else {
            run(toggleCommand(pid), "toggle (suspend)", pid);
        }
    }

    /** Re-acquire the GPU, copy memory back, then unlock CUDA APIs. */
    public void resume(long pid) {
        if (hasActions) {
            run(actionCommand("restore", pid), "restore", pid);
            run(actionCommand("unlock", pid), "unlock", pid);
        } else {
            run(toggleCommand(pid), "toggle (resume)", pid);
        }
    }

    private static void run(List<String> cmd, String what, long pid) {
        Exec r = exec(cmd, 600);
        if (r.status() != 0) {
            throw new GpuCheckpointException("cuda-checkpoint " + what + " of pid " + pid + " failed (status "
                    + r.status() + "): " + r.output().trim());
        }
    }

    private record Exec(int status, String output) {
    }

    private static Exec exec(List<String> cmd, int seconds) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Exec(-1, "timed out");
            }
            return new Exec(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Exec(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Exec(-1, "interrupted");
        }
    }
}
