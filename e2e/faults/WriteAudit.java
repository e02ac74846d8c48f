import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The API server's audit log of writes (LocalCluster.start with audited namespaces: one JSON line per
 * write, level Metadata), read back as who wrote what when: the user agent tells two operator replicas
 * apart, since both use the same credentials. The API server's own timestamps, so no clock of the
 * writer is trusted.
 */
record WriteAudit(List<Write> writes) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One write: its user agent, verb, resource (with "/subresource"), namespace, name, HTTP code and receipt time. */
    record Write(String userAgent, String verb, String resource, String namespace, String name, int code, Instant at) {
        boolean ok() {
            return code >= 200 && code < 300;
        }
    }

    static WriteAudit read(Path log) throws IOException {
        List<Write> writes = new ArrayList<>();
        if (!Files.exists(log)) {
            return new WriteAudit(writes);
        }
        for (String line : Files.readAllLines(log)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode e = JSON.readTree(line);
            JsonNode ref = e.path("objectRef");
            String resource = ref.path("resource").asText("") + (ref.hasNonNull("subresource") ? "/" + ref.path("subresource").asText() : "");
            writes.add(new Write(e.path("userAgent").asText(""), e.path("verb").asText(""), resource,
                    ref.path("namespace").asText(""), ref.path("name").asText(""),
                    e.path("responseStatus").path("code").asInt(0), Instant.parse(e.path("requestReceivedTimestamp").asText())));
        }
        return new WriteAudit(writes);
    }

    /** Writes whose user agent starts with {@code agent}, in {@code namespace}, received in [from, to). */
    List<Write> by(String agent, String namespace, Instant from, Instant to) {
        return writes.stream().filter(w -> w.userAgent().startsWith(agent) && w.namespace().equals(namespace)
                && !w.at().isBefore(from) && w.at().isBefore(to)).toList();
    }

    /** The first successful write of {@code resource} by {@code agent} at or after {@code from}; null when none. */
    Write first(String agent, String resource, Instant from) {
        return writes.stream().filter(w -> w.userAgent().startsWith(agent) && w.resource().equals(resource) && w.ok()
                && !w.at().isBefore(from)).min(java.util.Comparator.comparing(Write::at)).orElse(null);
    }
}
