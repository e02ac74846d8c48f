package dev.crucible.console.workspace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The workspace as it was at a step (issue 37): the snapshot at or before event {@code seq} that the rollout's trajectory
 * records (taken, or the one it was restored from) and the snapshot store still holds, read from its workspace.tar
 * without extracting it ({@link SnapshotTar}): one folder's members, or the head of one file. Read-only; names and
 * contents are the agent's, so they come back with control bytes and bidirectional overrides made visible
 * ({@link Escaped}) beside the raw name a link needs. No snapshot at or before the step: 404 saying which there are.
 */
public final class WorkspaceView {
    static final ObjectMapper JSON = new ObjectMapper();
    /** As the snapshot engine names them (SnapshotId): a folder name, never a path. */
    static final Pattern SNAPSHOT_ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,199}");
    static final int MAX_SNAPSHOT_EVENTS = 10_000;

    public record Snapshot(String id, long seq, String op, String trigger) {}

    public record Entry(String name, String nameShown, String path, String type, long size, String link, String linkShown) {}

    /** A file's head: {@code text} (escaped) or, for binary content, {@code hex} of its first bytes. */
    public record FileHead(String path, String pathShown, String type, long size, int shown, boolean truncated, boolean binary,
                           String text, String hex, String note) {}

    public record Answer(String id, long seq, Snapshot snapshot, List<Snapshot> snapshots, String path, String pathShown,
                         List<Entry> entries, boolean more, FileHead file, List<String> problems) {}

    private WorkspaceView() {}

    public static Answer of(RunStore store, Path snapshotStore, String id, long seq, String path) {
        Path attempt = store.folder(id);
        List<Snapshot> shots = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        long last = snapshotEvents(attempt.resolve("trajectory"), id, shots, problems);
        if (seq < 1 || seq > last) {
            throw ConsoleError.notFound("no event #" + seq + " in rollout " + id + " (it has " + last + " events)");
        }
        Snapshot at = null;
        List<String> gone = new ArrayList<>();
        for (Snapshot s : shots) {
            if (s.seq() > seq) break;
            if (tar(snapshotStore, s.id()) != null) at = s;
            else gone.add(s.id() + " (#" + s.seq() + ")");
        }
        if (at == null) {
            throw ConsoleError.notFound("no snapshot covers step #" + seq + " of rollout " + id + ": "
                    + (shots.isEmpty() ? "its trajectory records no snapshot (crucible run --snapshot-every, crucible restore)"
                    : shots.get(0).seq() > seq ? "its first snapshot is at #" + shots.get(0).seq() + ", after this step"
                    : "the snapshots at or before it are no longer in the store " + snapshotStore + ": " + String.join(", ", gone)));
        }
        Path tar = tar(snapshotStore, at.id());
        String want = path == null ? "" : SnapshotTar.clean(path);
        try {
            SnapshotTar.Listing one = SnapshotTar.list(tar, m -> m.path().equals(want), 1);
            problems.addAll(one.problems());
            if (!want.isEmpty() && one.members().isEmpty()) {
                throw ConsoleError.notFound("no " + Escaped.text(want) + " in snapshot " + at.id() + "'s workspace");
            }
            SnapshotTar.Member self = one.members().isEmpty() ? null : one.members().get(0);
            if (self != null && !"dir".equals(self.type())) {
                return new Answer(id, seq, at, shots, want, Escaped.text(want), List.of(), false, file(tar, self), problems);
            }
            String prefix = want.isEmpty() ? "" : want + "/";
            SnapshotTar.Listing children = SnapshotTar.list(tar, m -> m.path().startsWith(prefix) && !m.path().equals(want)
                    && m.path().indexOf('/', prefix.length()) < 0, SnapshotTar.MAX_MEMBERS);
            List<Entry> entries = new ArrayList<>();
            for (SnapshotTar.Member m : children.members()) {
                String name = m.path().substring(prefix.length());
                entries.add(new Entry(name, Escaped.text(name), m.path(), m.type(), m.size(), m.link(), m.link() == null ? null : Escaped.text(m.link())));
            }
            entries.sort(java.util.Comparator.comparing((Entry e) -> !"dir".equals(e.type())).thenComparing(Entry::name));
            return new Answer(id, seq, at, shots, want, Escaped.text(want), entries, children.more(), null, problems);
        } catch (IOException e) {
            throw new ConsoleError(409, "snapshot " + at.id() + "'s workspace.tar could not be read: " + e.getMessage());
        }
    }

    private static FileHead file(Path tar, SnapshotTar.Member m) throws IOException {
        String shown = Escaped.text(m.path());
        if (!"file".equals(m.type())) {
            String what = switch (m.type()) {
                case "symlink" -> "a symbolic link to " + Escaped.text(m.link()) + " (not followed)";
                case "hardlink" -> "a hard link to " + Escaped.text(SnapshotTar.clean(m.link())) + " (open that path for its content)";
                case "fifo" -> "a FIFO (named pipe): it has no content to show";
                case "char-device", "block-device" -> "a device node: it has no content to show";
                case "sparse" -> "a sparse file of " + m.size() + " bytes: not shown";
                default -> "a member of an unusual type: not shown";
            };
            return new FileHead(m.path(), shown, m.type(), m.size(), 0, false, false, null, null, shown + " is " + what);
        }
        byte[] b = SnapshotTar.head(tar, m, SnapshotTar.MAX_CONTENT);
        boolean truncated = m.size() > b.length;
        if (Escaped.binary(b)) {
            int n = Math.min(b.length, 1024);
            return new FileHead(m.path(), shown, m.type(), m.size(), n, m.size() > n, true, null, Escaped.hex(b, n),
                    "binary content (NUL bytes): the first " + n + " bytes in hex");
        }
        return new FileHead(m.path(), shown, m.type(), m.size(), b.length, truncated, false, Escaped.content(b), null,
                truncated ? "the first " + b.length + " of " + m.size() + " bytes" : null);
    }

    /** workspace.tar of a COMPLETE snapshot in the store, or null; the id is checked to be a folder name first. */
    static Path tar(Path snapshotStore, String id) {
        if (snapshotStore == null || id == null || !SNAPSHOT_ID.matcher(id).matches()) return null;
        Path dir = snapshotStore.resolve("snapshots").resolve(id);
        if (!SafeFiles.isDirectory(dir)) return null;
        try {
            JsonNode m = JSON.readTree(SafeFiles.read(dir.resolve("manifest.json"), 4 << 20));
            if (m == null || !"COMPLETE".equals(m.path("state").asText()) || !m.path("workspaceSha256").isTextual()) return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
        Path tar = dir.resolve("workspace.tar");
        return Files.isRegularFile(tar, LinkOption.NOFOLLOW_LINKS) ? tar : null;
    }

    /** The trajectory's snapshot events in order (failed ones left out); returns the last event's number. */
    private static long snapshotEvents(Path traj, String id, List<Snapshot> out, List<String> problems) {
        if (!SafeFiles.isDirectory(traj.resolve("segments"))) {
            throw ConsoleError.notFound("rollout " + id + " has no trajectory, so no step to show the workspace at");
        }
        long[] last = {0};
        try {
            TrajectoryReader.read(traj, e -> {
                last[0] = Math.max(last[0], e.seq());
                if (!EventKind.SNAPSHOT.equals(e.kind()) || e.text("id") == null || out.size() >= MAX_SNAPSHOT_EVENTS) return;
                String op = e.text("op");
                if ("taken".equals(op) || "restored".equals(op)) out.add(new Snapshot(e.text("id"), e.seq(), op, e.text("trigger")));
            }, p -> problems.add(p));
        } catch (IOException e) {
            problems.add("trajectory not read (" + e.getMessage() + ")");
        }
        return last[0];
    }
}
