package dev.crucible.e2e.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One client's writes, read from a kube-apiserver audit log (JSON lines, level Metadata, one event per
 * request): all of them, those received within a time window (the probes'), and those the API server
 * refused (by status code, e.g. "409 PUT sandboxes/status": conflicts), counted by method and resource like
 * {@link WriteCounter} ("PATCH sandboxes/status").
 */
record AuditWrites(WriteCounter all, WriteCounter probes, WriteCounter refused, long probeNamed) {

    /** Audit verbs as the HTTP methods WriteCounter reports for Crucible. */
    private static final Map<String, String> METHODS = Map.of("create", "POST", "update", "PUT", "patch", "PATCH",
            "delete", "DELETE", "deletecollection", "DELETE");

    /** The writes whose user agent starts with {@code userAgentPrefix} (client-go: "binary-name/version …"). */
    static AuditWrites read(Path log, String userAgentPrefix, Instant probesFrom, Instant probesUntil) {
        ObjectMapper json = new ObjectMapper();
        WriteCounter all = new WriteCounter();
        WriteCounter probes = new WriteCounter();
        WriteCounter refused = new WriteCounter();
        long probeNamed = 0;   // a cross-check of the window: the peer names a Sandbox's pod and Service after it
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            for (String line : lines) {
                JsonNode event = json.readTree(line);
                if (!event.path("userAgent").asText().startsWith(userAgentPrefix)) {
                    continue;
                }
                JsonNode ref = event.path("objectRef");
                String resource = ref.path("resource").asText()
                        + (ref.hasNonNull("subresource") ? "/" + ref.path("subresource").asText() : "");
                String key = METHODS.getOrDefault(event.path("verb").asText(), event.path("verb").asText()) + " " + resource;
                all.count(key);
                int code = event.path("responseStatus").path("code").asInt();
                if (code >= 400) {
                    refused.count(code + " " + key);
                }
                Instant received = Instant.parse(event.path("requestReceivedTimestamp").asText());
                if (!received.isBefore(probesFrom) && !received.isAfter(probesUntil)) {
                    probes.count(key);
                    probeNamed += ref.path("name").asText().startsWith("probe-") ? 1 : 0;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new AuditWrites(all, probes, refused, probeNamed);
    }
}
