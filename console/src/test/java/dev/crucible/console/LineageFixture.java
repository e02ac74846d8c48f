package dev.crucible.console;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test support: snapshot-able rollouts as crucible run and crucible restore leave them: the snapshots an attempt took
 * as {@code snapshot} events of its trajectory (written by the real recorder) and in result.json's {@code snapshots};
 * a restored branch's first event {@code snapshot restored}, and its result.json's {@code restoredFrom}.
 */
final class LineageFixture {
    private LineageFixture() {}

    /** A rollout of environment {@code env}: {@code steps} commands, a snapshot after each id in {@code took}. */
    static Path rollout(Path runs, String id, String env, String restoredFrom, String restoreTrigger, List<String> took, double reward,
                        int steps) throws IOException {
        Path dir = runs.resolve(id);
        Files.createDirectories(dir);
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir.resolve("trajectory"), RecorderLimits.defaults())) {
            if (restoredFrom != null) {
                Map<String, Object> ev = new LinkedHashMap<>(Map.of("op", "restored", "id", restoredFrom));
                if (restoreTrigger != null) ev.put("trigger", restoreTrigger);
                rec.append(EventKind.SNAPSHOT, null, null, ev);
            }
            for (int i = 0; i < steps; i++) {
                long p = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 200 + i, "command", "python3 step" + i + ".py " + id.replace('/', '-')));
                rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "step " + i + " of " + id + " done\n"));
                rec.append(EventKind.PROCESS_END, null, p, Map.of("pid", 200 + i, "exitStatus", 0));
                if (i < took.size()) rec.append(EventKind.SNAPSHOT, null, null, Map.of("op", "taken", "id", took.get(i), "trigger", "every 30s", "freezeWindowMs", 40));
            }
            rec.append(EventKind.OUTCOME, null, null, Map.of("phase", reward > 0 ? "Succeeded" : "Failed", "reward", reward));
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rollout", id.replaceAll(".*/", ""));
        r.put("environment", env);
        r.put("mode", "embedded");
        r.put("phase", reward > 0 ? "Succeeded" : "Failed");
        r.put("reward", reward);
        r.put("hackFindings", List.of());
        r.put("timings", Map.of("startedAt", "2026-11-29T07:00:00Z", "totalMs", 1000));
        if (restoredFrom != null) r.put("restoredFrom", restoredFrom);
        List<Map<String, Object>> snaps = new ArrayList<>();
        for (String s : took) snaps.add(Map.of("id", s, "takenAt", "2026-11-29T07:00:30Z", "trigger", "every 30s"));
        r.put("snapshots", snaps);
        Files.write(dir.resolve("result.json"), RunsFixture.JSON.writeValueAsBytes(r));
        return dir;
    }
}
