package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The generated CRDs, read from the classpath (the crds module puts them there at build time), so the
 * validator checks exactly the schema the API server will enforce. Each CRD is parsed on first use:
 * a one-file {@code crucible validate} pays only for the kinds it meets.
 */
public final class CrdSchemas {

    /** CRD file names as the Fabric8 generator writes them, one per kind. */
    public static final List<String> FILES = List.of(
            "rlenvironments.crucible.dev-v1.yml",
            "rollouts.crucible.dev-v1.yml",
            "rolloutsnapshots.crucible.dev-v1.yml",
            "probemodels.crucible.dev-v1.yml");

    /** Kind → its file in {@link #FILES} (CommittedCrdsTest checks each file names this kind). */
    static final Map<String, String> KIND_FILES = orderedKinds();

    public static final String RESOURCE_DIR = "META-INF/crucible/crds/";

    private static final ObjectMapper YAML = new YAMLMapper();

    /** A kind's CRD, the openAPIV3Schema of its one served version, and the SHA-256 of the CRD file. */
    public record Crd(String kind, String group, String version, JsonNode crd, JsonNode schema, String digest) {
        public String apiVersion() {
            return group + "/" + version;
        }
    }

    private final Map<String, Crd> byKind = new ConcurrentHashMap<>();

    /** The CRD of a kind, or null for a kind that is not ours. */
    public Crd forKind(String kind) {
        String file = KIND_FILES.get(kind);
        return file == null ? null : byKind.computeIfAbsent(kind, k -> parse(file));
    }

    /** The kinds, in {@link #FILES} order, without reading any CRD. */
    public static List<String> kinds() {
        return List.copyOf(KIND_FILES.keySet());
    }

    /** Every CRD (reads them all). */
    public Map<String, Crd> all() {
        Map<String, Crd> out = new LinkedHashMap<>();
        KIND_FILES.keySet().forEach(k -> out.put(k, forKind(k)));
        return out;
    }

    private static Crd parse(String file) {
        byte[] bytes = bytes(RESOURCE_DIR + file);
        JsonNode crd;
        try {
            crd = YAML.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonNode version = crd.path("spec").path("versions").path(0);
        String kind = crd.path("spec").path("names").path("kind").asText();
        return new Crd(kind, crd.path("spec").path("group").asText(), version.path("name").asText(), crd,
                version.path("schema").path("openAPIV3Schema"), sha256(bytes));
    }

    private static Map<String, String> orderedKinds() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("RLEnvironment", FILES.get(0));
        m.put("Rollout", FILES.get(1));
        m.put("RolloutSnapshot", FILES.get(2));
        m.put("ProbeModel", FILES.get(3));
        return m;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] bytes(String resource) {
        try (InputStream in = CrdSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("CRD " + resource + " is not on the classpath; build the crds module");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
