package dev.crucible.snapshot.container;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Imports checkpoint images into the node's containerd, in the namespace the CRI uses ({@code k8s.io}),
 * with containerd's own client ({@code ctr images import}): containerd has no other import API than its
 * gRPC content and image services, which {@code ctr} drives. The layout is streamed to it as a tar.
 */
public final class CtrImages {
    private final Path ctr;
    private final Path socket;

    public CtrImages(Path ctr, Path socket) {
        this.ctr = ctr;
        this.socket = socket;
    }

    /** The target digest of the image named {@code reference}, or null when there is none. */
    public String digestOf(String reference, Duration timeout) {
        for (String[] row : list(timeout)) {
            if (row[0].equals(reference)) return row[2];
        }
        return null;
    }

    /** Removes {@code reference} and every other name with the same target digest; nothing if absent. */
    public void removeAllNamesOf(String reference, Duration timeout) {
        List<String[]> rows = list(timeout);
        String digest = rows.stream().filter(r -> r[0].equals(reference)).map(r -> r[2]).findFirst().orElse(null);
        if (digest == null) return;
        List<String> cmd = new java.util.ArrayList<>(List.of(ctr.toString(), "-a", socket.toString(), "-n", "k8s.io", "images", "rm"));
        rows.stream().filter(r -> r[2].equals(digest)).map(r -> r[0]).forEach(cmd::add);
        run(cmd, timeout, "remove checkpoint image " + reference);
    }

    /** {@code ctr images ls} as rows of (name, type, digest, …). */
    private List<String[]> list(Duration timeout) {
        String out = run(List.of(ctr.toString(), "-a", socket.toString(), "-n", "k8s.io", "images", "ls"), timeout, "list images");
        return out.lines().skip(1).map(String::strip).filter(l -> !l.isEmpty()).map(l -> l.split("\\s+")).filter(r -> r.length >= 3).toList();
    }

    private String run(List<String> cmd, Duration timeout, String what) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(p));
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("ctr: " + what + " took over " + timeout.toSeconds() + " s");
            }
            String said = out.get(5, TimeUnit.SECONDS);
            if (p.exitValue() != 0) {
                throw new IllegalStateException("ctr could not " + what + " (exit " + p.exitValue() + "): " + said);
            }
            return said;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + ctr + " to " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + what);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("ctr: " + what + ": " + e.getMessage());
        }
    }

    private static String readAll(Process p) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }

    public void importLayout(Path layout, String reference, Duration timeout) {
        // tar of the layout piped into ctr (the layer, the only large file, is read once)
        ProcessBuilder tar = new ProcessBuilder("tar", "-C", layout.toString(), "-cf", "-", ".");
        ProcessBuilder imp = new ProcessBuilder(ctr.toString(), "-a", socket.toString(), "-n", "k8s.io", "images", "import", "--all-platforms", "-")
                .redirectErrorStream(true);
        try {
            List<Process> ps = ProcessBuilder.startPipeline(List.of(tar, imp));
            Process tarProc = ps.get(0);
            Process ctrProc = ps.get(1);
            // read on the side, so the timeout holds even when ctr hangs with its output open
            CompletableFuture<String> said = CompletableFuture.supplyAsync(() -> readAll(ctrProc));
            if (!ctrProc.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                ps.forEach(Process::destroyForcibly);
                throw new IllegalStateException("importing checkpoint image " + reference + " into containerd took over " + timeout.toSeconds() + " s");
            }
            String out = said.getNow("");
            try {
                out = said.get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // keep what was read
            }
            // ctr first: when it fails before reading (no containerd), tar only dies of the closed pipe
            if (ctrProc.exitValue() != 0) {
                tarProc.destroyForcibly();
                throw new IllegalStateException("containerd refused checkpoint image " + reference + " (ctr exit " + ctrProc.exitValue() + "): "
                        + (out.length() > 2000 ? out.substring(out.length() - 2000) : out));
            }
            if (!tarProc.waitFor(10, TimeUnit.SECONDS) || tarProc.exitValue() != 0) {
                String err = new String(tarProc.getErrorStream().readNBytes(2048), StandardCharsets.UTF_8).strip();
                throw new IllegalStateException("cannot read checkpoint image " + layout + " (tar "
                        + (tarProc.isAlive() ? "did not end" : "exit " + tarProc.exitValue()) + "): " + err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + ctr + " to import " + reference, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted importing " + reference);
        }
    }
}
