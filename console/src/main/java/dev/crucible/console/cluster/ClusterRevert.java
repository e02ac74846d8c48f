package dev.crucible.console.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.console.http.ClusterPages;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * "Revert to the snapshot before this step and continue with this patch" (issue 37, actions): a branch Rollout
 * ({@code spec.restoreFrom} the last Ready RolloutSnapshot of the rollout taken at or before the step, {@code spec.patches}
 * the person's patch) created on the API server <em>with the caller's own token</em>: the console has no power of its
 * own, so a person who may not create Rollouts in that namespace gets the API server's refusal, named. The branch has
 * the source's spec otherwise (as the operator's own {@code onHack: revert} branch), and says what it reverts in its
 * labels and annotations, so the lineage and a person reading {@code kubectl get rollouts} can tell.
 */
public final class ClusterRevert {
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String REVERTS_LABEL = "crucible.dev/reverts";
    public static final String REVERT_OF_LABEL = "crucible.dev/revert-of";
    public static final String AT_EVENT_ANNOTATION = "crucible.dev/revert-at-event";
    /** As the CRD's {@code spec.patches}: at most 64, each at most 1 MiB. */
    static final int MAX_PATCHES = 64;
    static final int MAX_PATCH_CHARS = 1 << 20;

    private final ClusterSource source;
    private final ClusterMirror mirror;

    public ClusterRevert(ClusterSource source, ClusterMirror mirror) {
        this.source = source;
        this.mirror = mirror;
    }

    /** What the page shows once the branch exists. */
    public record Branch(String id, String name, String namespace, String snapshot, String snapshotBecause, long atEvent,
                         int patches, String link) {}

    private record Shot(String name, Long seq, String consistentAt) {}

    /** {@code body}: {@code {"id": "NS/NAME", "seq": N, "patches": [{"path", "content"} | {"diff"[, "path"]}]}}. */
    public Branch revert(String token, JsonNode body) {
        if (body == null || !body.isObject()) throw ConsoleError.badRequest("the request body must be a JSON object {id, seq, patches}");
        String id = body.path("id").asText("");
        int slash = id.indexOf('/');
        if (slash < 1 || slash != id.lastIndexOf('/')) throw ConsoleError.badRequest("id: '" + clip(id) + "' is not namespace/name");
        String ns = id.substring(0, slash);
        String name = id.substring(slash + 1);
        if (!body.path("seq").canConvertToLong() || body.path("seq").asLong() < 1) {
            throw ConsoleError.badRequest("seq: the step's event number (#N on the timeline) is required, a whole number from 1");
        }
        long seq = body.path("seq").asLong();
        ArrayNode patches = patches(body.path("patches"));

        // the step and the snapshots the trajectory records up to it, read through the mirror (the caller's token)
        List<Shot> takenUpTo = new ArrayList<>();
        String[] time = {null};
        long[] last = {0};
        try (ClusterPages.Mirror m = mirror.rollout(token, ns, name, 0)) {
            java.nio.file.Path traj = m.runs().resolve(ns).resolve(name).resolve("trajectory");
            if (java.nio.file.Files.isDirectory(traj.resolve("segments"))) {
                TrajectoryReader.read(traj, e -> {
                    last[0] = Math.max(last[0], e.seq());
                    if (e.seq() == seq) time[0] = e.time();
                    if (e.seq() <= seq && EventKind.SNAPSHOT.equals(e.kind()) && e.text("id") != null && !"restored".equals(e.text("op"))) {
                        takenUpTo.add(new Shot(e.text("id"), e.seq(), null));
                    }
                }, p -> { });
            }
        } catch (IOException e) {
            throw new ConsoleError(502, "the trajectory of " + id + " could not be read: " + e.getMessage());
        }
        if (seq > last[0]) {
            throw ConsoleError.notFound("event #" + seq + " is past the end of " + id + "'s trajectory (" + last[0] + " events)");
        }
        Shot shot = pick(token, ns, name, seq, time[0], takenUpTo);

        JsonNode from = ask(() -> source.resource(token, ns, "rollouts/" + name));
        ObjectNode branch = branch(from, shot.name(), seq, patches);
        JsonNode created;
        try {
            created = source.createRollout(token, ns, branch);
        } catch (ClusterSource.Refused e) {
            if (e.status == 403) {
                throw new ConsoleError(403, "you may not create Rollouts in namespace " + ns + ": the API server refused your token ("
                        + e.getMessage() + "); a revert is a new Rollout, made with your own permissions (ask for create on "
                        + "rollouts.crucible.dev there)");
            }
            throw new ConsoleError(e.status == 422 ? 400 : e.status, "the branch was not created: " + e.getMessage());
        }
        String made = created.path("metadata").path("name").asText();
        String because = shot.seq() != null ? "the last snapshot the trajectory records at or before #" + seq + " (#" + shot.seq() + ")"
                : "the last Ready snapshot of " + name + " consistent at or before #" + seq + "'s time (" + shot.consistentAt() + ")";
        return new Branch(ns + "/" + made, made, ns, shot.name(), because, seq, patches.size(),
                "/trace?rollout=" + java.net.URLEncoder.encode(ns + "/" + made, java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The snapshot to revert to: among the rollout's Ready RolloutSnapshots (listed with the caller's token), the last one
     * the trajectory records as taken at or before the step; else (a trajectory without snapshot events) the last one
     * consistent at or before the step's time. None: a 409 saying which snapshots there are.
     */
    private Shot pick(String token, String ns, String name, long seq, String time, List<Shot> takenUpTo) {
        JsonNode list = ask(() -> source.resource(token, ns, "rolloutsnapshots"));
        Map<String, String> ready = new LinkedHashMap<>(); // name -> consistentAt
        List<String> others = new ArrayList<>();
        for (JsonNode s : list.path("items")) {
            if (!name.equals(s.path("spec").path("rolloutRef").path("name").asText())) continue;
            String n = s.path("metadata").path("name").asText();
            if ("Ready".equals(s.path("status").path("phase").asText())) ready.put(n, s.path("status").path("consistentAt").asText(null));
            else others.add(n + " (" + s.path("status").path("phase").asText("no phase") + ")");
        }
        for (int i = takenUpTo.size() - 1; i >= 0; i--) {
            Shot t = takenUpTo.get(i);
            if (ready.containsKey(t.name())) return new Shot(t.name(), t.seq(), ready.get(t.name()));
        }
        Instant at = parse(time);
        Shot best = null;
        if (at != null) {
            for (var e : ready.entrySet()) {
                Instant c = parse(e.getValue());
                if (c != null && !c.isAfter(at) && (best == null || c.isAfter(parse(best.consistentAt())))) best = new Shot(e.getKey(), null, e.getValue());
            }
        }
        if (best != null) return best;
        throw new ConsoleError(409, "no Ready snapshot of " + ns + "/" + name + " at or before event #" + seq + " to revert to"
                + (ready.isEmpty() && others.isEmpty() ? " (it has no RolloutSnapshot: give it a snapshotPolicy with intervalSeconds)"
                : " (Ready: " + (ready.isEmpty() ? "none" : String.join(", ", ready.keySet())) + (others.isEmpty() ? "" : "; not ready: "
                + String.join(", ", others)) + ")"));
    }

    /** The branch: the source's spec, restored from {@code snapshot}, with the person's patches; labels saying what it reverts. */
    static ObjectNode branch(JsonNode from, String snapshot, long seq, ArrayNode patches) {
        JsonNode meta = from.path("metadata");
        String name = meta.path("name").asText();
        ObjectNode b = JSON.createObjectNode();
        b.put("apiVersion", "crucible.dev/v1alpha1").put("kind", "Rollout");
        ObjectNode m = b.putObject("metadata");
        // generateName: each revert of a step is a new branch (two patches of one step are two branches, never a clash)
        String base = name.length() > 40 ? name.substring(0, 40) : name;
        m.put("generateName", base + "-r" + seq + "-");
        ObjectNode labels = m.putObject("labels");
        meta.path("labels").fields().forEachRemaining(e -> labels.set(e.getKey(), e.getValue()));
        int depth = 0;
        try {
            depth = Integer.parseInt(labels.path(REVERTS_LABEL).asText("0"));
        } catch (NumberFormatException e) {
            depth = 0; // a label someone wrote by hand: count from here
        }
        labels.put(REVERTS_LABEL, Integer.toString(depth + 1));
        labels.put(REVERT_OF_LABEL, name.length() > 63 ? name.substring(0, 63) : name);
        m.putObject("annotations").put(AT_EVENT_ANNOTATION, Long.toString(seq)).put("crucible.dev/revert-source", name)
                .put("crucible.dev/created-by", "crucible console, with the caller's own token");
        ObjectNode spec = from.path("spec").deepCopy();
        spec.remove(List.of("restoreFrom", "patches"));
        spec.putObject("restoreFrom").put("snapshotName", snapshot);
        if (!patches.isEmpty()) spec.set("patches", patches);
        b.set("spec", spec);
        return b;
    }

    /** The person's patches, as the CRD's {@code spec.patches} accepts them; a bad one is a 400 naming its field. */
    static ArrayNode patches(JsonNode given) {
        ArrayNode out = JSON.createArrayNode();
        if (given.isMissingNode() || given.isNull()) return out;
        if (!given.isArray()) throw ConsoleError.badRequest("patches: a list of {path, content} or {diff}");
        if (given.size() > MAX_PATCHES) throw ConsoleError.badRequest("patches: " + given.size() + " given, at most " + MAX_PATCHES);
        for (int i = 0; i < given.size(); i++) {
            JsonNode p = given.get(i);
            String where = "patches[" + i + "]";
            String path = p.path("path").asText("").strip();
            boolean content = p.hasNonNull("content");
            boolean diff = p.hasNonNull("diff");
            if (content == diff) throw ConsoleError.badRequest(where + ": give exactly one of content or diff");
            if (content && path.isEmpty()) throw ConsoleError.badRequest(where + ".path: the file (relative to the workspace) that content replaces");
            if (!path.isEmpty() && (path.startsWith("/") || path.matches("(.*/)?\\.\\.(/.*)?") || path.length() > 1024 || path.indexOf('\0') >= 0)) {
                throw ConsoleError.badRequest(where + ".path: '" + clip(path) + "' must be relative and stay inside the workspace (no .. segment)");
            }
            String text = content ? p.get("content").asText() : p.get("diff").asText();
            if (text.length() > MAX_PATCH_CHARS) throw ConsoleError.badRequest(where + (content ? ".content" : ".diff") + ": over 1 MiB");
            ObjectNode o = out.addObject();
            if (!path.isEmpty()) o.put("path", path);
            o.put(content ? "content" : "diff", text);
        }
        return out;
    }

    private static Instant parse(String t) {
        if (t == null || t.isEmpty()) return null;
        try {
            return Instant.parse(t);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static String clip(String s) { return s.length() > 80 ? s.substring(0, 80) + "…" : s; }

    private static <T> T ask(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (ClusterSource.Refused e) {
            throw new ConsoleError(e.status, e.getMessage());
        }
    }
}
