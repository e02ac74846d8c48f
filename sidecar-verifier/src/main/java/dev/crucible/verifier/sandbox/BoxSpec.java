package dev.crucible.verifier.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one box shows its commands, besides the system's toolchain (see {@link HostView}).
 *
 * @param label     names the box in messages and its cgroup ("agent-calc-0", "grade-1")
 * @param writable  folders bound read-write at their own path (the workspace; grading's results);
 *                  as root they are handed to the box's unprivileged uid first
 * @param readOnly  folders or files bound read-only at their own path, after the writable ones, so
 *                  protected paths inside the workspace stay read-only; missing ones are skipped
 * @param files     read-only binds at another path: source → where the box sees it (files an agent
 *                  command names through a symlink)
 * @param home      HOME inside the box; made in the fresh /tmp when it lies under /tmp
 * @param limits    what the box may use
 * @param scratch   folders (inside read-only ones) each command gets empty and writable on a tmpfs: tool caches
 *                  kept inside setup's node_modules; those that are not folders when a command starts are skipped
 * @param network   shares the host's network: only the validation run that tells offline-only failures apart
 *                  (never an agent, never grading of a rollout)
 * @param volume    the size-capped volume the writable folders lie on (null: none); its filling up is the
 *                  disk limit's reason, and then the polled size of the writable folders is not needed
 * @param masks     paths inside what the box shows that its commands must not read (the trusted test files an
 *                  oracle worker runs beside): a file reads as empty (read-only /dev/null over it), a folder lists as
 *                  empty (a read-only empty tmpfs); mounted after every bind they lie in; missing ones are skipped.
 *                  For paths the box cannot replace (inside read-only binds): a mask names a place, not a file
 * @param moved     folders bound read-write at another path: source → where the box sees it (an oracle worker's
 *                  throwaway copy of the grading tree, shown where the agent's box showed the workspace); bound before the
 *                  read-only ones
 * @param shownAt   folders bound read-only at another path: source → where the box sees it (the grading tree's .git and
 *                  setup folders inside an oracle worker's copy shown at the agent's workspace path)
 */
public record BoxSpec(String label, List<Path> writable, List<Path> readOnly, Map<Path, Path> files, String home, BoxLimits limits,
                      List<Path> scratch, boolean network, DiskVolume volume, List<Path> masks, Map<Path, Path> moved,
                      Map<Path, Path> shownAt) {
    public BoxSpec {
        scratch = List.copyOf(scratch);
        writable = List.copyOf(writable);
        readOnly = List.copyOf(readOnly);
        files = Map.copyOf(new LinkedHashMap<>(files));
        masks = List.copyOf(masks);
        moved = Map.copyOf(new LinkedHashMap<>(moved));
        shownAt = Map.copyOf(new LinkedHashMap<>(shownAt));
    }

    public static BoxSpec of(String label, BoxLimits limits) {
        return new BoxSpec(label, List.of(), List.of(), Map.of(), "/tmp/home", limits, List.of(), false, null, List.of(), Map.of(), Map.of());
    }

    public BoxSpec withWritable(Path... p) {
        List<Path> l = new ArrayList<>(writable);
        for (Path x : p) l.add(x.toAbsolutePath().normalize());
        return new BoxSpec(label, l, readOnly, files, home, limits, scratch, network, volume, masks, moved, shownAt);
    }

    public BoxSpec withReadOnly(List<Path> p) {
        List<Path> l = new ArrayList<>(readOnly);
        for (Path x : p) l.add(x.toAbsolutePath().normalize());
        return new BoxSpec(label, writable, l, files, home, limits, scratch, network, volume, masks, moved, shownAt);
    }

    public BoxSpec withFiles(Map<Path, Path> f) {
        Map<Path, Path> m = new LinkedHashMap<>(files);
        m.putAll(f);
        return new BoxSpec(label, writable, readOnly, m, home, limits, scratch, network, volume, masks, moved, shownAt);
    }

    public BoxSpec withHome(String h) { return new BoxSpec(label, writable, readOnly, files, h, limits, scratch, network, volume, masks, moved, shownAt); }

    public BoxSpec withLimits(BoxLimits l) { return new BoxSpec(label, writable, readOnly, files, home, l, scratch, network, volume, masks, moved, shownAt); }

    public BoxSpec withScratch(List<Path> p) {
        List<Path> l = new ArrayList<>(scratch);
        for (Path x : p) l.add(x.toAbsolutePath().normalize());
        return new BoxSpec(label, writable, readOnly, files, home, limits, l, network, volume, masks, moved, shownAt);
    }

    public BoxSpec withNetwork(boolean on) { return new BoxSpec(label, writable, readOnly, files, home, limits, scratch, on, volume, masks, moved, shownAt); }

    public BoxSpec withVolume(DiskVolume v) { return new BoxSpec(label, writable, readOnly, files, home, limits, scratch, network, v, masks, moved, shownAt); }

    /** Hides each of {@code p} (absolute, normalized) from the box's commands: see {@code masks}. */
    public BoxSpec withMasks(List<Path> p) {
        List<Path> l = new ArrayList<>(masks);
        for (Path x : p) l.add(x.toAbsolutePath().normalize());
        return new BoxSpec(label, writable, readOnly, files, home, limits, scratch, network, volume, l, moved, shownAt);
    }

    /** Binds folder {@code src} read-write where the box sees {@code dest} (absolute, normalized): see {@code moved}. */
    public BoxSpec withMoved(Path src, Path dest) {
        Map<Path, Path> m = new LinkedHashMap<>(moved);
        m.put(src.toAbsolutePath().normalize(), dest.toAbsolutePath().normalize());
        return new BoxSpec(label, writable, readOnly, files, home, limits, scratch, network, volume, masks, m, shownAt);
    }

    /** Binds folder {@code src} read-only where the box sees {@code dest} (absolute, normalized): see {@code shownAt}. */
    public BoxSpec withShownAt(Path src, Path dest) {
        Map<Path, Path> m = new LinkedHashMap<>(shownAt);
        m.put(src.toAbsolutePath().normalize(), dest.toAbsolutePath().normalize());
        return new BoxSpec(label, writable, readOnly, files, home, limits, scratch, network, volume, masks, moved, m);
    }
}
