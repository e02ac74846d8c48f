package dev.crucible.snapshot.container;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A container checkpoint archive (what the kubelet's checkpoint API has the runtime write) as an OCI
 * image layout, the form containerd's CRI restores a container from: its CreateContainer sees an image
 * whose index carries {@value #CONTAINER_NAME_ANNOTATION} and, with {@code enable_experimental_restore_via_create},
 * restores the checkpoint in the new pod instead of starting the image. The archive is the image's one
 * layer, uncompressed, so its digest is also its diff ID and the archive's checksum.
 *
 * @param layout        the OCI image layout directory (oci-layout, index.json, blobs/sha256/…)
 * @param reference     the name the image is imported under (a pod's container image)
 * @param archiveDigest {@code sha256:…} of the archive
 * @param archiveBytes  the archive's size
 * @param indexDigest   {@code sha256:…} of the image index, what the snapshot's manifest records
 */
public record CheckpointImage(Path layout, String reference, String archiveDigest, long archiveBytes, String indexDigest) {
    /** The annotation containerd's CRI looks for on the image index (checkpointctl's name). */
    public static final String CONTAINER_NAME_ANNOTATION = "org.criu.checkpoint.container.name";
    static final String INDEX = "application/vnd.oci.image.index.v1+json";
    static final String MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    static final String CONFIG = "application/vnd.oci.image.config.v1+json";
    static final String LAYER = "application/vnd.oci.image.layer.v1.tar";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Builds the layout in {@code out} (created; must not exist) from {@code archive}, which is moved in
     * as the layer blob (the same file system: no copy of a GiB-sized archive).
     */
    public static CheckpointImage build(Path archive, String container, String reference, Map<String, String> annotations, Path out) {
        try {
            Files.createDirectories(out.getParent());
            Files.createDirectory(out);
            Path blobs = Files.createDirectories(out.resolve("blobs/sha256"));
            long size = Files.size(archive);
            String layer = sha256(archive);
            Files.move(archive, blobs.resolve(hex(layer)), StandardCopyOption.ATOMIC_MOVE);

            ObjectNode config = JSON.createObjectNode().put("architecture", goArch()).put("os", "linux");
            config.putObject("rootfs").put("type", "layers").putArray("diff_ids").add(layer);
            Blob cfg = write(blobs, config);

            Map<String, String> ann = new LinkedHashMap<>(annotations);
            ann.put(CONTAINER_NAME_ANNOTATION, container);
            ObjectNode manifest = JSON.createObjectNode().put("schemaVersion", 2).put("mediaType", MANIFEST);
            descriptor(manifest.putObject("config"), CONFIG, cfg.digest, cfg.size);
            descriptor(manifest.putArray("layers").addObject(), LAYER, layer, size);
            manifest.set("annotations", JSON.valueToTree(ann));
            Blob man = write(blobs, manifest);

            ObjectNode index = JSON.createObjectNode().put("schemaVersion", 2).put("mediaType", INDEX);
            ObjectNode m = descriptor(index.putArray("manifests").addObject(), MANIFEST, man.digest, man.size);
            m.putObject("platform").put("architecture", goArch()).put("os", "linux");
            index.set("annotations", JSON.valueToTree(ann));
            Blob idx = write(blobs, index);

            // The layout's own index.json names the image index, under the reference containerd imports it as.
            ObjectNode top = JSON.createObjectNode().put("schemaVersion", 2).put("mediaType", INDEX);
            ArrayNode manifests = top.putArray("manifests");
            ObjectNode ref = descriptor(manifests.addObject(), INDEX, idx.digest, idx.size);
            ref.putObject("annotations").put("io.containerd.image.name", reference).put("org.opencontainers.image.ref.name", tagOf(reference));
            Files.write(out.resolve("index.json"), JSON.writeValueAsBytes(top));
            Files.writeString(out.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
            return new CheckpointImage(out, reference, layer, size, idx.digest);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the checkpoint image of " + archive + " in " + out, e);
        }
    }

    /** The layer blob: the checkpoint archive itself. */
    public Path archive() {
        return layout.resolve("blobs/sha256").resolve(hex(archiveDigest));
    }

    private record Blob(String digest, long size) {}

    private static Blob write(Path blobs, ObjectNode node) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(node);
        String digest = "sha256:" + HexFormat.of().formatHex(digest().digest(bytes));
        Files.write(blobs.resolve(hex(digest)), bytes);
        return new Blob(digest, bytes.length);
    }

    private static ObjectNode descriptor(ObjectNode d, String mediaType, String digest, long size) {
        return d.put("mediaType", mediaType).put("digest", digest).put("size", size);
    }

    /** {@code sha256:…} of a file, streamed. */
    public static String sha256(Path file) throws IOException {
        MessageDigest md = digest();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return "sha256:" + HexFormat.of().formatHex(md.digest());
    }

    private static String hex(String digest) {
        return digest.substring("sha256:".length());
    }

    private static String tagOf(String reference) {
        int slash = reference.lastIndexOf('/');
        int colon = reference.lastIndexOf(':');
        return colon > slash ? reference.substring(colon + 1) : "latest";
    }

    static String goArch() {
        String a = System.getProperty("os.arch");
        return switch (a) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> a;
        };
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
