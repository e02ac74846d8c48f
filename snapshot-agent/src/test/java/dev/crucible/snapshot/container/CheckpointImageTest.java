package dev.crucible.snapshot.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint archive becomes an OCI image layout that containerd can import and its CRI can restore
 * from, read here the way containerd reads it: oci-layout and index.json at the top, index.json naming
 * one image index under the reference, every blob content-addressed (file name = sha256 of its bytes,
 * descriptor size = blob size), the container-name annotation on the image index, the archive itself as
 * the manifest's one uncompressed layer (so its digest is the config's diff ID). The archive is moved in,
 * not copied, and a layout is never built over an existing directory.
 */
class CheckpointImageTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String REF = "crucible.dev/checkpoint/snap-1:latest";

    @TempDir
    Path tmp;

    @Test
    void buildsAnOciLayoutContainerdCanImportAndRestoreFrom() throws Exception {
        Path archive = tarOf(tmp.resolve("src"), tmp.resolve("checkpoint-x.tar"));
        byte[] archiveBytes = Files.readAllBytes(archive);
        Path out = tmp.resolve("store/snap-1/checkpoint");

        CheckpointImage image = CheckpointImage.build(archive, "counter", REF, Map.of("crucible.dev/snapshot", "snap-1"), out);

        assertThat(JSON.readTree(out.resolve("oci-layout").toFile()).path("imageLayoutVersion").asText()).isEqualTo("1.0.0");
        for (Path blob : blobs(out)) {
            assertThat(blob.getFileName().toString()).as("blob %s is named by its sha256", blob).isEqualTo(hex(Files.readAllBytes(blob)));
        }

        JsonNode top = JSON.readTree(out.resolve("index.json").toFile());
        assertThat(top.path("manifests")).hasSize(1);
        JsonNode indexDesc = top.path("manifests").get(0);
        assertThat(indexDesc.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.index.v1+json");
        assertThat(indexDesc.path("annotations").path("io.containerd.image.name").asText()).isEqualTo(REF);
        assertThat(indexDesc.path("digest").asText()).isEqualTo(image.indexDigest());

        JsonNode index = blob(out, indexDesc);
        assertThat(index.path("annotations").path(CheckpointImage.CONTAINER_NAME_ANNOTATION).asText())
                .as("containerd's CRI restores only from an image whose index names the container").isEqualTo("counter");
        assertThat(index.path("annotations").path("crucible.dev/snapshot").asText()).isEqualTo("snap-1");
        assertThat(index.path("manifests")).hasSize(1);
        JsonNode manifestDesc = index.path("manifests").get(0);
        assertThat(manifestDesc.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
        assertThat(manifestDesc.path("platform").path("os").asText()).isEqualTo("linux");

        JsonNode manifest = blob(out, manifestDesc);
        JsonNode config = blob(out, manifest.path("config"));
        assertThat(manifest.path("layers")).hasSize(1);
        JsonNode layer = manifest.path("layers").get(0);
        assertThat(layer.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.layer.v1.tar");
        assertThat(layer.path("digest").asText()).isEqualTo("sha256:" + hex(archiveBytes)).isEqualTo(image.archiveDigest());
        assertThat(layer.path("size").asLong()).isEqualTo(archiveBytes.length).isEqualTo(image.archiveBytes());
        assertThat(config.path("rootfs").path("diff_ids").get(0).asText()).isEqualTo(layer.path("digest").asText());
        assertThat(config.path("os").asText()).isEqualTo("linux");

        assertThat(archive).as("the archive is moved into the layout, not copied").doesNotExist();
        assertThat(image.archive()).isEqualTo(out.resolve("blobs/sha256/" + hex(archiveBytes))).hasBinaryContent(archiveBytes);
        assertThat(blobs(out)).as("config, layer, manifest, image index; nothing else").hasSize(4);
    }

    @Test
    void neverBuildsIntoAnExistingDirectory() throws Exception {
        Path archive = tarOf(tmp.resolve("src"), tmp.resolve("checkpoint-y.tar"));
        Path out = Files.createDirectories(tmp.resolve("taken"));

        assertThatThrownBy(() -> CheckpointImage.build(archive, "counter", REF, Map.of(), out))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining(out.toString());
        assertThat(archive).as("a refused build leaves the archive where it was").exists();
        try (Stream<Path> s = Files.list(out)) {
            assertThat(s).isEmpty();
        }
    }

    /** Reads the blob a descriptor names, checking its size against the descriptor. */
    private static JsonNode blob(Path layout, JsonNode descriptor) throws Exception {
        Path f = layout.resolve("blobs/sha256").resolve(descriptor.path("digest").asText().substring("sha256:".length()));
        assertThat(f).as("blob of %s", descriptor).isRegularFile();
        assertThat(Files.size(f)).as("size of %s", descriptor).isEqualTo(descriptor.path("size").asLong());
        return JSON.readTree(f.toFile());
    }

    private static List<Path> blobs(Path layout) throws Exception {
        try (Stream<Path> s = Files.list(layout.resolve("blobs/sha256"))) {
            return new ArrayList<>(s.toList());
        }
    }

    static Path tarOf(Path src, Path tar) throws Exception {
        Files.createDirectories(src);
        Files.writeString(src.resolve("pages-1.img"), "not really CRIU pages\n".repeat(100));
        Files.writeString(src.resolve("config.dump"), "{\"id\":\"abc\"}");
        Process p = new ProcessBuilder("tar", "-C", src.toString(), "-cf", tar.toString(), ".").redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("tar: %s", said).isZero();
        return tar;
    }

    static String hex(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
