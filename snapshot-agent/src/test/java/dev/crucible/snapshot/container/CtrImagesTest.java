package dev.crucible.snapshot.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Importing a checkpoint image with containerd's {@code ctr}, against a fake {@code ctr} (a shell script):
 * it is called for the CRI's namespace (k8s.io) on the given socket, and receives the whole layout as a
 * tar stream on stdin (untarred here, it is the layout file for file). When ctr fails, the error carries
 * ctr's own words and exit code, also when it fails before reading the stream (containerd not there) and
 * the layout is larger than a pipe holds; and a ctr that hangs is given up at the timeout.
 */
class CtrImagesTest {

    @TempDir
    Path tmp;

    @Test
    void streamsTheLayoutAsATarIntoCtrForTheCriNamespace() throws Exception {
        Path layout = layout(1024);
        Path ctr = fakeCtr("""
                printf '%s\\n' "$@" > "$OUT/args"
                cat > "$OUT/stdin.tar"
                echo "unpacking crucible.dev/checkpoint/snap-1:latest...done"
                """);

        new CtrImages(ctr, Path.of("/run/containerd/containerd.sock")).importLayout(layout, "crucible.dev/checkpoint/snap-1:latest", Duration.ofSeconds(20));

        assertThat(Files.readAllLines(tmp.resolve("args")))
                .containsExactly("-a", "/run/containerd/containerd.sock", "-n", "k8s.io", "images", "import", "--all-platforms", "-");
        Path untarred = Files.createDirectories(tmp.resolve("untarred"));
        run("tar", "-C", untarred.toString(), "-xf", tmp.resolve("stdin.tar").toString());
        assertThat(untarred.resolve("index.json")).exists();
        assertThat(untarred.resolve("oci-layout")).exists();
        assertThat(contents(untarred)).as("the tar stream holds the layout, file for file").isEqualTo(contents(layout));
    }

    @Test
    void aFailingCtrGivesItsMessageAndExitCode() throws Exception {
        Path layout = layout(1024);
        Path ctr = fakeCtr("""
                cat > /dev/null
                echo "ctr: content digest sha256:abc: not found" >&2
                exit 3
                """);

        assertThatThrownBy(() -> new CtrImages(ctr, tmp.resolve("sock")).importLayout(layout, "crucible.dev/checkpoint/snap-1:latest", Duration.ofSeconds(20)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("crucible.dev/checkpoint/snap-1:latest")
                .hasMessageContaining("ctr exit 3")
                .hasMessageContaining("ctr: content digest sha256:abc: not found");
    }

    @Test
    void aCtrThatFailsBeforeReadingALargeLayoutStillGivesItsMessage() throws Exception {
        Path layout = layout(4 << 20); // more than a pipe's buffer: tar is still writing when ctr exits
        Path ctr = fakeCtr("""
                echo "ctr: failed to dial \\"/run/containerd/containerd.sock\\": connection refused" >&2
                exit 1
                """);

        assertThatThrownBy(() -> new CtrImages(ctr, tmp.resolve("sock")).importLayout(layout, "crucible.dev/checkpoint/snap-1:latest", Duration.ofSeconds(20)))
                .isInstanceOf(IllegalStateException.class)
                .as("ctr's reason, not tar's broken pipe, explains a failed import (CtrImages checks tar's exit before ctr's)")
                .hasMessageContaining("ctr exit 1")
                .hasMessageContaining("failed to dial");
    }

    @Test
    void aHangingCtrIsGivenUpAtTheTimeout() throws Exception {
        Path layout = layout(1024);
        Path ctr = fakeCtr("""
                cat > /dev/null
                sleep 12
                """);

        long t0 = System.nanoTime();
        Throwable thrown = catchThrowable(() -> new CtrImages(ctr, tmp.resolve("sock"))
                .importLayout(layout, "crucible.dev/checkpoint/snap-1:latest", Duration.ofSeconds(1)));
        long ms = (System.nanoTime() - t0) / 1_000_000;

        assertThat(ms).as("a 1 s import timeout ends the call well before the hung ctr (12 s) exits; "
                + "CtrImages reads ctr's output to the end before it waits with the timeout").isLessThan(6_000);
        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("took over 1 s");
    }

    /** A checkpoint image layout whose archive (layer) holds {@code bytes} random bytes. */
    private Path layout(int bytes) throws Exception {
        byte[] data = new byte[bytes];
        new Random(7).nextBytes(data);
        Path archive = Files.write(tmp.resolve("checkpoint.tar"), data);
        return CheckpointImage.build(archive, "counter", "crucible.dev/checkpoint/snap-1:latest", Map.of(), tmp.resolve("layout")).layout();
    }

    private Path fakeCtr(String body) throws Exception {
        Path ctr = tmp.resolve("ctr");
        Files.writeString(ctr, "#!/bin/sh\nOUT='" + tmp + "'\n" + body);
        Files.setPosixFilePermissions(ctr, PosixFilePermissions.fromString("rwx------"));
        return ctr;
    }

    private static Map<String, String> contents(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(f).toString(), CheckpointImageTest.hex(Files.readAllBytes(f)));
            }
        }
        return out;
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("%s: %s", String.join(" ", cmd), said).isZero();
    }
}
