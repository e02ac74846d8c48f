package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.FileDigest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 over what a restore trusts in a manifest: its id, how to restore (images dir,
 * freezer, namespace flags, GPU pids, disk-only), the workspace archive's hash and every file's
 * name, size and sha256 (or link target). The sums beside the images are then only as good as
 * the key: a rewritten image whose sums were recomputed fails the seal.
 */
public final class ManifestSeal {

    private final ManifestKey key;

    public ManifestSeal(ManifestKey key) {
        this.key = key;
    }

    /** Sets {@code m.hmac}; call after the last change to a sealed field. */
    public void seal(Manifest m) {
        m.hmac = HexFormat.of().formatHex(mac(m));
    }

    /** Throws {@link SecurityException} naming the snapshot when the seal is missing or wrong. */
    public void verify(Manifest m, SnapshotId expectedId) {
        if (!expectedId.value().equals(m.id)) {
            throw new SecurityException("snapshot '" + expectedId + "': its manifest names id '" + m.id + "'; refused");
        }
        if (m.hmac == null || m.hmac.isBlank()) {
            throw new SecurityException("snapshot '" + expectedId + "' has no manifest HMAC (sealed manifests only); refused");
        }
        byte[] given;
        try {
            given = HexFormat.of().parseHex(m.hmac);
        } catch (IllegalArgumentException e) {
            throw new SecurityException("snapshot '" + expectedId + "': manifest hmac is not hex; refused");
        }
        if (!MessageDigest.isEqual(given, mac(m))) {
            throw new SecurityException("snapshot '" + expectedId + "': manifest HMAC does not match (manifest or file sums"
                    + " rewritten, or sealed with another key); refused");
        }
    }

    private byte[] mac(Manifest m) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.bytes(), "HmacSHA256"));
            return mac.doFinal(canonical(m));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Length-prefixed fields in a fixed order, so no two manifests encode the same. */
    static byte[] canonical(Manifest m) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF("crucible-manifest-v1");
            str(out, m.id);
            str(out, m.state == null ? null : m.state.name());
            str(out, m.group);
            str(out, m.imagesDir);
            str(out, m.freezer);
            str(out, String.valueOf(m.pidNamespaceRoot));
            str(out, String.valueOf(m.tcpEstablished));
            str(out, String.valueOf(m.diskOnly));
            str(out, m.workspaceSha256);
            str(out, String.valueOf(m.workspaceBytes));
            str(out, String.valueOf(m.gpuNamespacePids));
            if (m.checkpointImage != null) { // only when present: seals of earlier manifests stay valid
                str(out, "runtime-checkpoint");
                str(out, m.checkpointImage);
                str(out, m.checkpointDigest);
                str(out, String.valueOf(m.checkpointBytes));
            }
            Map<String, FileDigest> files = m.files == null ? Map.of() : new TreeMap<>(m.files);
            out.writeInt(files.size());
            for (Map.Entry<String, FileDigest> e : files.entrySet()) {
                str(out, e.getKey());
                out.writeLong(e.getValue().size());
                str(out, e.getValue().sha256());
                str(out, e.getValue().linkTarget());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void str(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
