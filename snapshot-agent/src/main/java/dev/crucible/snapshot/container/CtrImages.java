package dev.crucible.snapshot.container;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    public void importLayout(Path layout, String reference, Duration timeout) {
        // tar of the layout piped into ctr (the layer, the only large file, is read once)
        ProcessBuilder tar = new ProcessBuilder("tar", "-C", layout.toString(), "-cf", "-", ".");
        ProcessBuilder imp = new ProcessBuilder(ctr.toString(), "-a", socket.toString(), "-n", "k8s.io", "images", "import", "--all-platforms", "-")
                .redirectErrorStream(true);
        try {
            List<Process> ps = ProcessBuilder.startPipeline(List.of(tar, imp));
            Process last = ps.get(1);
            byte[] out = last.getInputStream().readAllBytes();
            boolean done = last.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) && ps.get(0).waitFor(10, TimeUnit.SECONDS);
            if (!done) {
                ps.forEach(Process::destroyForcibly);
                throw new IllegalStateException("importing checkpoint image " + reference + " into containerd took over " + timeout.toSeconds() + " s");
            }
            String said = new String(out, StandardCharsets.UTF_8).strip();
            if (ps.get(0).exitValue() != 0) {
                String err = new String(ps.get(0).getErrorStream().readNBytes(2048), StandardCharsets.UTF_8).strip();
                throw new IllegalStateException("cannot read checkpoint image " + layout + " (tar exit " + ps.get(0).exitValue() + "): " + err);
            }
            if (last.exitValue() != 0) {
                throw new IllegalStateException("containerd refused checkpoint image " + reference + " (ctr exit " + last.exitValue() + "): "
                        + (said.length() > 2000 ? said.substring(said.length() - 2000) : said));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + ctr + " to import " + reference, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted importing " + reference);
        }
    }
}
