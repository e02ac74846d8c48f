package dev.crucible.e2e.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * An OCI image archive read back the way a runtime reads it: index.json → manifest → config →
 * layers, every blob checked against its digest and every layer's uncompressed tar against the
 * config's diff_id. Refuses (IllegalStateException naming the archive) anything that does not hold.
 */
public record OciArchive(Path path, String name, JsonNode manifest, JsonNode config, List<Layer> layers) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One layer: its digest and its entries (path without leading "/" → tar entry). */
    public record Layer(String digest, long size, Map<String, TarArchiveEntry> entries, Map<String, byte[]> smallFiles) {
    }

    /** Files up to this size are kept in memory (JSON blobs, small layer files); layers are streamed. */
    private static final long SMALL = 1 << 20;

    public static OciArchive read(Path archive) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        try (InputStream in = Files.newInputStream(archive); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                if (e.isFile() && e.getSize() <= SMALL) {
                    files.put(strip(e.getName()), tar.readAllBytes());
                }
            }
        }
        JsonNode index = json(archive, files, "index.json");
        check(archive, index.path("manifests").size() == 1, "index.json names " + index.path("manifests").size() + " manifests, not 1");
        JsonNode ref = index.path("manifests").get(0);
        String name = ref.path("annotations").path("io.containerd.image.name").asText(
                ref.path("annotations").path("org.opencontainers.image.ref.name").asText(null));
        JsonNode manifest = JSON.readTree(blob(archive, files, ref));
        JsonNode config = JSON.readTree(blob(archive, files, manifest.path("config")));
        JsonNode diffIds = config.path("rootfs").path("diff_ids");
        JsonNode descriptors = manifest.path("layers");
        check(archive, diffIds.size() == descriptors.size(),
                "config has " + diffIds.size() + " diff_ids for " + descriptors.size() + " layers");
        Map<String, Integer> wanted = new HashMap<>();
        for (int i = 0; i < descriptors.size(); i++) {
            String digest = descriptors.get(i).path("digest").asText();
            check(archive, digest.startsWith("sha256:"), "layer " + i + " without a sha256 digest");
            wanted.put("blobs/sha256/" + digest.substring(7), i);
        }
        Layer[] layers = new Layer[descriptors.size()];
        try (InputStream in = Files.newInputStream(archive); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                Integer i = wanted.get(strip(e.getName()));
                if (i != null && layers[i] == null) {
                    try {
                        layers[i] = layer(archive, i, descriptors.get(i), diffIds.get(i).asText(), tar);
                    } catch (IOException ex) {
                        throw new IllegalStateException(archive + ": layer " + i + " unreadable: " + ex.getMessage(), ex);
                    }
                }
            }
        }
        for (int i = 0; i < layers.length; i++) {
            check(archive, layers[i] != null, "layer blob " + descriptors.get(i).path("digest").asText() + " missing");
        }
        return new OciArchive(archive, name, manifest, config, List.of(layers));
    }

    /** Streams one layer blob: its digest, size and diff_id checked, its entries listed. */
    private static Layer layer(Path archive, int i, JsonNode descriptor, String diffId, InputStream blob) throws IOException {
        MessageDigest compressed = sha256();
        MessageDigest uncompressed = sha256();
        CountingInputStream counted = new CountingInputStream(new DigestInputStream(blob, compressed));
        Map<String, TarArchiveEntry> entries = new LinkedHashMap<>();
        Map<String, byte[]> small = new HashMap<>();
        InputStream gz = new GZIPInputStream(counted);
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new DigestInputStream(gz, uncompressed))) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                entries.put(strip(e.getName()), e);
                if (e.isFile() && e.getSize() <= SMALL) {
                    small.put(strip(e.getName()), tar.readAllBytes());
                }
            }
            tar.transferTo(OutputStream.nullOutputStream());
            gz.transferTo(OutputStream.nullOutputStream());
            counted.transferTo(OutputStream.nullOutputStream());
        }
        String digest = descriptor.path("digest").asText();
        check(archive, ("sha256:" + HexFormat.of().formatHex(compressed.digest())).equals(digest),
                "layer " + i + " does not match its digest " + digest);
        check(archive, counted.count == descriptor.path("size").asLong(), "layer " + i + " size differs from its descriptor");
        check(archive, ("sha256:" + HexFormat.of().formatHex(uncompressed.digest())).equals(diffId),
                "layer " + i + " does not match diff_id " + diffId);
        return new Layer(digest, counted.count, entries, small);
    }

    /** Counts bytes read, without closing what it wraps (the archive's tar stream stays open). */
    private static final class CountingInputStream extends FilterInputStream {
        long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count += b < 0 ? 0 : 1;
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            count += Math.max(n, 0);
            return n;
        }

        @Override
        public void close() {
        }
    }

    /** The container's entrypoint (config.Entrypoint), empty when unset. */
    public List<String> entrypoint() {
        List<String> out = new ArrayList<>();
        config.path("config").path("Entrypoint").forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The entry at path ("usr/bin/java") in the last layer that has it, or null. */
    public TarArchiveEntry find(String path) {
        for (int i = layers.size() - 1; i >= 0; i--) {
            TarArchiveEntry e = layers.get(i).entries().get(strip(path));
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    public long compressedSize() {
        return layers.stream().mapToLong(Layer::size).sum();
    }

    private static byte[] blob(Path archive, Map<String, byte[]> files, JsonNode descriptor) {
        String digest = descriptor.path("digest").asText();
        check(archive, digest.startsWith("sha256:"), "descriptor without a sha256 digest: " + descriptor);
        byte[] data = files.get("blobs/sha256/" + digest.substring(7));
        check(archive, data != null, "blob " + digest + " missing");
        check(archive, sha256(data).equals(digest.substring(7)), "blob " + digest + " does not match its digest");
        check(archive, data.length == descriptor.path("size").asLong(), "blob " + digest + " size differs from its descriptor");
        return data;
    }

    private static JsonNode json(Path archive, Map<String, byte[]> files, String name) throws IOException {
        byte[] data = files.get(name);
        check(archive, data != null, "no " + name + " (not an OCI image archive)");
        return JSON.readTree(data);
    }

    private static void check(Path archive, boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(archive + ": " + what);
        }
    }

    private static String strip(String name) {
        String n = name.startsWith("./") ? name.substring(2) : name;
        n = n.startsWith("/") ? n.substring(1) : n;
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }

    static String sha256(byte[] data) {
        return HexFormat.of().formatHex(sha256().digest(data));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
