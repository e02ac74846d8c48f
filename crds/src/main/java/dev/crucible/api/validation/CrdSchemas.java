package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The generated CRDs, read from the classpath (the crds module puts them there at build time), so the
 * validator checks exactly the schema the API server will enforce.
 */
public final class CrdSchemas {

    /** CRD file names as the Fabric8 generator writes them, one per kind. */
    public static final List<String> FILES = List.of(
            "rlenvironments.crucible.dev-v1.yml",
            "rollouts.crucible.dev-v1.yml",
            "rolloutsnapshots.crucible.dev-v1.yml",
            "probemodels.crucible.dev-v1.yml");

    public static final String RESOURCE_DIR = "META-INF/crucible/crds/";

    private static final ObjectMapper YAML = new YAMLMapper();

    /** A kind's CRD and the openAPIV3Schema of its one served version. */
    public record Crd(String kind, String group, String version, JsonNode crd, JsonNode schema) {
        public String apiVersion() {
            return group + "/" + version;
        }
    }

    private final Map<String, Crd> byKind = new LinkedHashMap<>();

    public CrdSchemas() {
        for (String file : FILES) {
            JsonNode crd = load(RESOURCE_DIR + file);
            JsonNode version = crd.path("spec").path("versions").path(0);
            String kind = crd.path("spec").path("names").path("kind").asText();
            byKind.put(kind, new Crd(kind, crd.path("spec").path("group").asText(),
                    version.path("name").asText(), crd, version.path("schema").path("openAPIV3Schema")));
        }
    }

    public Crd forKind(String kind) {
        return byKind.get(kind);
    }

    public Map<String, Crd> all() {
        return byKind;
    }

    static JsonNode load(String resource) {
        try (InputStream in = CrdSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("CRD " + resource + " is not on the classpath; build the crds module");
            }
            return YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
