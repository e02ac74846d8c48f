package dev.crucible.tracestore.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.tracestore.index.RolloutIndex;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the index again from what the backend holds, when the store starts with an empty one: each rollout's
 * registration ({@code store-meta.json}, written at its first write: uid, environment, labels, creation time; the
 * Rollout itself may be gone), its bytes and last write from the backend's listing, and its phase, reward, detectors
 * and event count from its segments, read one line at a time (a segment goes through a temporary file, never the heap).
 */
final class IndexRebuild {
    private static final Logger LOG = LoggerFactory.getLogger(IndexRebuild.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BATCH = 1000;

    private IndexRebuild() {}

    /** The registration kept beside a rollout's trajectory. */
    static byte[] meta(String uid, String environment, Map<String, String> labels, Instant created) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("uid", uid);
        m.put("environment", environment);
        m.put("labels", labels);
        m.put("created", created.toString());
        try {
            return JSON.writeValueAsBytes(m);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many rollouts were indexed; one without a registration is logged and left out. */
    static int rebuild(TraceStorage storage, RolloutIndex index) throws IOException, SQLException {
        int n = 0;
        for (TraceStorage.Stored s : storage.list()) {
            if (s.meta() == null) {
                LOG.warn("{}/{} has no {}: stored before registrations were kept, not indexed", s.namespace(), s.name(), VolumeStorage.META);
                continue;
            }
            JsonNode m = JSON.readTree(s.meta());
            Map<String, String> labels = new LinkedHashMap<>();
            m.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            index.register(s.namespace(), s.name(), m.path("uid").asText(null), m.path("environment").asText(null), labels,
                    Instant.parse(m.path("created").asText()));
            for (TraceFiles.SegmentInfo seg : storage.segments(s.namespace(), s.name())) {
                events(storage, s, seg.number(), index);
            }
            index.applied(s.namespace(), s.name(), s.bytes(), List.of(), s.lastWrite());
            n++;
        }
        return n;
    }

    private static void events(TraceStorage storage, TraceStorage.Stored s, int segment, RolloutIndex index) throws IOException, SQLException {
        Path tmp = Files.createTempFile("rebuild-", ".jsonl");
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                storage.copySegment(s.namespace(), s.name(), segment, out);
            }
            List<JsonNode> batch = new ArrayList<>();
            try (BufferedReader r = Files.newBufferedReader(tmp, StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.isBlank()) continue;
                    batch.add(JSON.readTree(line)); // checked on the way in: whole lines of events
                    if (batch.size() == BATCH) {
                        index.applied(s.namespace(), s.name(), 0, batch, s.lastWrite());
                        batch.clear();
                    }
                }
            }
            index.applied(s.namespace(), s.name(), 0, batch, s.lastWrite());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
