package dev.crucible.snapshot.workload;

import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessTree;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Starts memhold.c (compiled with gcc on first use) the way a container-like local rollout runs:
 * {@code unshare --pid --fork setsid memhold …}, so the workload is PID 1 of its own PID
 * namespace (no new mount namespace). That is what lets CRIU restore the same images several
 * times side by side: each restore gets a fresh PID namespace. Used by tests and the benchmark.
 */
public final class MemoryWorkload implements AutoCloseable {

    /** What memhold publishes in its task name. */
    public record Status(long count, boolean ok) {
    }

    private final Process launcher;
    private final long pid;

    private MemoryWorkload(Process launcher, long pid) {
        this.launcher = launcher;
        this.pid = pid;
    }

    /** PID (host namespace) of the workload, the root to dump. */
    public long pid() {
        return pid;
    }

    public static MemoryWorkload start(long sizeMiB, long dirtyKiB, long tickMs, long verifyEvery) {
        return start(sizeMiB, dirtyKiB, tickMs, verifyEvery, null);
    }

    /** @param cwd working directory (null: inherit); CRIU writes a scratch "proc.crtools" there while dumping */
    public static MemoryWorkload start(long sizeMiB, long dirtyKiB, long tickMs, long verifyEvery, Path cwd) {
        Path exe = compile();
        try {
            Process p = new ProcessBuilder("unshare", "--pid", "--fork", "setsid", exe.toString(), Long.toString(sizeMiB),
                    Long.toString(dirtyKiB), Long.toString(tickMs), Long.toString(verifyEvery))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).directory(cwd == null ? null : cwd.toFile()).start();
            long inner = awaitChild(p);
            MemoryWorkload w = new MemoryWorkload(p, inner);
            if (!ProcessTree.isPidNamespaceRoot(inner)) {
                w.close();
                throw new IllegalStateException("memhold is not PID 1 of its namespace (setsid forked?)");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (status(inner) == null) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    w.close();
                    throw new IllegalStateException("memhold did not finish filling " + sizeMiB + " MiB");
                }
                LockSupport.parkNanos(5_000_000);
            }
            return w;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start memhold (needs unshare and setsid from util-linux)", e);
        }
    }

    /** Parses /proc/PID/comm; null while still filling or when the process is gone. */
    public static Status status(long pid) {
        try {
            String comm = ProcFs.comm(pid);
            if (!comm.startsWith("c") || !comm.contains(" ")) {
                return null;
            }
            String[] parts = comm.substring(1).split(" ");
            return new Status(Long.parseLong(parts[0]), parts[1].equals("ok"));
        } catch (RuntimeException e) {
            return null;
        }
    }

    public Status status() {
        return status(pid);
    }

    /** Kills a workload or a restored copy of it: PID 1 of a namespace ignores SIGTERM, so SIGKILL. */
    public static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Override
    public void close() {
        kill(pid);
        launcher.destroyForcibly();
        try {
            launcher.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long awaitChild(Process launcher) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try {
                List<Long> children = ProcFs.children(launcher.pid());
                if (!children.isEmpty()) {
                    return children.get(0);
                }
            } catch (RuntimeException ignored) {
                // launcher not fully up yet
            }
            LockSupport.parkNanos(2_000_000);
        }
        launcher.destroyForcibly();
        throw new IllegalStateException("unshare did not start memhold");
    }

    /** Compiles the bundled memhold.c once per source version into ~/.cache/crucible/snapshot-agent. */
    public static synchronized Path compile() {
        try {
            byte[] src;
            try (InputStream in = MemoryWorkload.class.getResourceAsStream("memhold.c")) {
                src = in.readAllBytes();
            }
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(src)).substring(0, 12);
            Path dir = Path.of(System.getProperty("user.home"), ".cache", "crucible", "snapshot-agent");
            Files.createDirectories(dir);
            Path exe = dir.resolve("memhold-" + hash);
            if (Files.isExecutable(exe)) {
                return exe;
            }
            Path c = dir.resolve("memhold-" + hash + ".c");
            Files.write(c, src);
            Path tmp = dir.resolve("memhold-" + hash + ".tmp" + ProcessHandle.current().pid());
            Process gcc = new ProcessBuilder("gcc", "-O2", "-o", tmp.toString(), c.toString()).redirectErrorStream(true).start();
            String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (gcc.waitFor() != 0) {
                throw new IllegalStateException("gcc failed on memhold.c: " + out);
            }
            Files.move(tmp, exe, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return exe;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot compile memhold.c (is gcc installed?)", e);
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
    }
}
