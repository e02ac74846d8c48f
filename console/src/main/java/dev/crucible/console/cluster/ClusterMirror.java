package dev.crucible.console.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.console.http.ClusterPages;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.ResultFile;
import dev.crucible.console.store.LearnableBands;
import dev.crucible.console.store.RolloutSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pages' data source over the cluster: what {@link ClusterSource} answers for the caller's token, written as the
 * folders {@code crucible run} leaves ({@code NS/NAME/result.json}, {@code trajectory/segments}, the blobs one event
 * refers to), so the local console's handlers answer the same API over it. A refusal of the API server or the store
 * becomes the page's message with its status: a namespace the caller may not list is a 403 that says so, not an empty
 * list.
 */
public final class ClusterMirror implements ClusterPages.Source {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern BLOB = Pattern.compile("\"blob\"\\s*:\\s*\"sha256:([0-9a-f]{64})\"");
    /** One event's blobs fetched at most (the step view shows the event's call, output and diff). */
    static final int MAX_BLOBS = 16;

    private final ClusterSource source;

    public ClusterMirror(ClusterSource source) {
        this.source = source;
    }

    @Override
    public ClusterPages.Mirror rollouts(String token, List<String> namespaces) {
        ObjectNode all = ask(() -> source.rollouts(token, namespaces));
        // the list is built in memory (writing a folder per rollout cost ~10 ms each on a busy disk); the folder stays empty
        List<RolloutSummary> listed = new ArrayList<>();
        for (JsonNode row : all.path("rollouts")) {
            listed.add(ResultFile.summary(row.path("namespace").asText() + "/" + row.path("name").asText(), result(row), row.has("stored")));
        }
        return new ClusterPages.Mirror(temp(), extra(all), listed, LearnableBands.of(all.path("learnableBands")));
    }

    @Override
    public ClusterPages.Mirror rollout(String token, String namespace, String name, long blobsOfSeq) {
        ObjectNode all = ask(() -> source.rollouts(token, List.of(namespace)));
        for (JsonNode r : all.path("refusedNamespaces")) {
            if (r.asText().equals(namespace)) {
                throw new ConsoleError(403, "you may not see rollout " + namespace + "/" + name + ": the API server refuses your token "
                        + "a list of Rollouts in namespace " + namespace + " (ask for get/list on rollouts.crucible.dev there)");
            }
        }
        JsonNode row = null;
        for (JsonNode r : all.path("rollouts")) {
            if (r.path("namespace").asText().equals(namespace) && r.path("name").asText().equals(name)) row = r;
        }
        if (row == null) {
            throw ConsoleError.notFound("no rollout " + namespace + "/" + name + " among those you may see (neither live in the API "
                    + "server nor stored in the trace store)");
        }
        Path runs = temp();
        try {
            Path dir = write(runs, row);
            if (row.has("stored")) mirrorTrajectory(token, namespace, name, dir.resolve("trajectory"), blobsOfSeq);
        } catch (RuntimeException e) {
            new ClusterPages.Mirror(runs, Map.of()).close();
            throw e;
        }
        return new ClusterPages.Mirror(runs, extra(all));
    }

    @Override
    public ClusterPages.Mirror select(String token, List<String> namespaces, java.util.function.Predicate<RolloutSummary> withTrajectory,
                                     int max, long maxBytes, boolean snapshots) {
        ObjectNode all = ask(() -> source.rollouts(token, namespaces));
        Map<String, List<String>> taken = snapshots ? snapshotsOf(token, all) : Map.of();
        List<RolloutSummary> listed = new ArrayList<>();
        List<JsonNode> rows = new ArrayList<>();
        for (JsonNode row : all.path("rollouts")) {
            String id = row.path("namespace").asText() + "/" + row.path("name").asText();
            if (taken.containsKey(id)) {
                var arr = ((ObjectNode) row).putArray("snapshots");
                taken.get(id).forEach(n -> arr.addObject().put("id", n));
            }
            listed.add(ResultFile.summary(id, result(row), row.has("stored")));
            rows.add(row);
        }
        Path runs = temp();
        int mirrored = 0;
        int left = 0;
        long bytes = 0;
        try {
            for (int i = 0; i < rows.size(); i++) {
                JsonNode row = rows.get(i);
                if (!row.has("stored") || !withTrajectory.test(listed.get(i))) continue;
                long size = row.path("stored").path("bytes").asLong();
                if (mirrored == max || bytes + size > maxBytes) {
                    left++;
                    continue;
                }
                bytes += size;
                Path dir = write(runs, row);
                mirrorTrajectory(token, row.path("namespace").asText(), row.path("name").asText(), dir.resolve("trajectory"), 0);
                mirrored++;
            }
        } catch (RuntimeException e) {
            new ClusterPages.Mirror(runs, Map.of()).close();
            throw e;
        }
        Map<String, Object> extra = extra(all);
        extra.put("trajectoriesRead", mirrored);
        if (left > 0) extra.put("trajectoriesLeftOut", left);
        return new ClusterPages.Mirror(runs, extra, listed);
    }

    /**
     * The RolloutSnapshots of each namespace listed, asked with the caller's token: rollout id → snapshot names (the
     * lineage's edges; failed ones left out). A namespace whose snapshots the caller may not list adds none.
     */
    private Map<String, List<String>> snapshotsOf(String token, ObjectNode all) {
        Set<String> namespaces = new java.util.TreeSet<>();
        for (JsonNode r : all.path("rollouts")) namespaces.add(r.path("namespace").asText());
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String ns : namespaces) {
            JsonNode list;
            try {
                list = source.resource(token, ns, "rolloutsnapshots");
            } catch (ClusterSource.Refused e) {
                if (e.status == 403 || e.status == 404) continue;
                throw new ConsoleError(e.status, e.getMessage());
            }
            for (JsonNode s : list.path("items")) {
                if ("Failed".equals(s.path("status").path("phase").asText())) continue;
                out.computeIfAbsent(ns + "/" + s.path("spec").path("rolloutRef").path("name").asText(), k -> new ArrayList<>())
                        .add(s.path("metadata").path("name").asText());
            }
        }
        return out;
    }

    private void mirrorTrajectory(String token, String ns, String name, Path trajectory, long seq) {
        byte[] list = ask(() -> source.stored(token, ns, name, "segments"));
        if (list == null) return;
        Set<String> blobs = new LinkedHashSet<>();
        try {
            Path segments = Files.createDirectories(trajectory.resolve("segments"));
            for (JsonNode s : JSON.readTree(list).path("segments")) {
                int n = s.path("number").asInt();
                byte[] seg = ask(() -> source.stored(token, ns, name, "segments/" + n));
                if (seg == null) continue;
                Files.write(segments.resolve(String.format("%06d.jsonl", n)), seg);
                if (seq > 0 && blobs.isEmpty()) blobs.addAll(blobsOf(seg, seq));
            }
            for (String hex : blobs.stream().limit(MAX_BLOBS).toList()) {
                byte[] b = ask(() -> source.stored(token, ns, name, "blobs/sha256/" + hex));
                if (b == null) continue; // the step view names the missing blob
                Path p = trajectory.resolve("blobs").resolve("sha256").resolve(hex.substring(0, 2)).resolve(hex);
                Files.createDirectories(p.getParent());
                Files.write(p, b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The blobs the event {@code seq} refers to, read from its line in one segment (none when it is not there). */
    static List<String> blobsOf(byte[] segment, long seq) {
        List<String> out = new ArrayList<>();
        String marker = "\"seq\":" + seq;
        for (String line : new String(segment, StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf(marker);
            if (at < 0 || (at + marker.length() < line.length() && Character.isDigit(line.charAt(at + marker.length())))) continue;
            try {
                if (JSON.readTree(line).path("seq").asLong() != seq) continue;
            } catch (IOException e) {
                continue; // a broken line: the trace view names it
            }
            Matcher m = BLOB.matcher(line);
            while (m.find()) out.add(m.group(1));
        }
        return out;
    }

    /** {@code NS/NAME/result.json} with the fields the pages read, from one row of {@link ClusterSource#rollouts}. */
    private static Path write(Path runs, JsonNode row) {
        String ns = row.path("namespace").asText();
        String name = row.path("name").asText();
        ObjectNode r = result(row);
        try {
            Path dir = Files.createDirectories(runs.resolve(ns).resolve(name));
            Files.write(dir.resolve("result.json"), JSON.writeValueAsBytes(r));
            // the rollouts view marks a rollout without a stored trajectory; the trace view fills this one on demand
            if (row.has("stored")) Files.createDirectories(dir.resolve("trajectory").resolve("segments"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The result.json document of one row: the fields the pages read. */
    private static ObjectNode result(JsonNode row) {
        String ns = row.path("namespace").asText();
        String name = row.path("name").asText();
        ObjectNode r = JSON.createObjectNode();
        r.put("rollout", name);
        r.put("namespace", ns);
        r.put("mode", row.path("live").asBoolean() ? "cluster" : "cluster (deleted; stored trajectory)");
        for (String f : List.of("environment", "phase", "reason", "message", "reward", "testReward", "verdict", "tests", "restoredFrom",
                "snapshots", "labels")) {
            if (row.hasNonNull(f) && !row.get(f).isMissingNode()) r.set(f, row.get(f));
        }
        JsonNode found = row.path("hackFindings");
        if (found.isArray() && !found.isEmpty()) {
            r.set("hackFindings", found);
        } else {
            // a deleted Rollout: the store's index keeps its findings' detectors
            var hf = r.putArray("hackFindings");
            for (JsonNode d : row.path("stored").path("detectors")) hf.addObject().put("detector", d.asText());
        }
        if (row.hasNonNull("startedAt")) r.putObject("timings").set("startedAt", row.get("startedAt"));
        if (row.has("stored")) {
            r.putObject("trajectory").put("events", row.path("stored").path("events").asLong())
                    .put("complete", row.path("stored").path("ended").asBoolean());
        }
        return r;
    }

    private static Map<String, Object> extra(ObjectNode all) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<String> listed = new ArrayList<>();
        all.path("listedNamespaces").forEach(n -> listed.add(n.asText()));
        List<String> refused = new ArrayList<>();
        all.path("refusedNamespaces").forEach(n -> refused.add(n.asText()));
        out.put("cluster", true);
        out.put("listedNamespaces", listed);
        out.put("refusedNamespaces", refused);
        out.put("dir", listed.contains("*") ? "cluster: every namespace" : "cluster: namespaces " + (listed.isEmpty() ? "none" : String.join(", ", listed)));
        return out;
    }

    private static Path temp() {
        try {
            return Files.createTempDirectory("crucible-console-mirror-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T ask(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (ClusterSource.Refused e) {
            throw new ConsoleError(e.status, e.getMessage());
        }
    }
}
