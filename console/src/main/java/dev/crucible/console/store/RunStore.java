package dev.crucible.console.store;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rollouts under a RUNS folder: every folder holding a result.json, at any depth up to {@link #MAX_DEPTH}
 * ({@code crucible run --out RUNS/x} writes RUNS/x/result.json, a group RUNS/x/NAME/…). An attempt folder is not
 * descended into (its sandbox/ holds the agent's workspace, where a planted result.json must not become a rollout),
 * and no link is followed. The index is rescanned at most every {@code rescanAfter} and re-reads only the
 * result.json files whose size or time changed. A result.json that cannot be read is listed as a problem and as a
 * rollout too ({@link ResultFile#refused}: what its first fields say, its message saying why the rest was not read), so
 * an agent cannot hide its rollout by making its result unreadable.
 */
public final class RunStore {
    public static final int MAX_DEPTH = 8;
    public static final int MAX_ROLLOUTS = 200_000;

    /** {@code bands}: each environment's learnable band from the runs' summary.json files ({@link LearnableBands}). */
    public record Index(List<RolloutSummary> rollouts, Map<String, RolloutSummary> byId, List<String> problems, long scannedAtMs,
                        Map<String, LearnableBands.Band> bands) {
        /** The band of {@code environment}: from a summary.json, else the default. */
        public LearnableBands.Band band(String environment) { return bands.getOrDefault(environment, LearnableBands.DEFAULT); }
    }

    private record Cached(FileTime modified, long size, RolloutSummary summary, String problem) {}

    private final Path root;
    private final long rescanAfterMs;
    private final Map<Path, Cached> cache = new HashMap<>();
    private volatile Index index;

    public RunStore(Path root, long rescanAfterMs) throws IOException {
        if (!Files.isDirectory(root)) throw new IOException(root + " is not a folder");
        this.root = root.toRealPath();
        this.rescanAfterMs = rescanAfterMs;
    }

    public Path root() { return root; }

    /**
     * A store of the given rollouts, not read from {@code root} (which must exist, and is where a rollout's folder
     * would be): the cluster console's list, built in memory from what the API server and the trace store answered.
     */
    public static RunStore of(Path root, List<RolloutSummary> rollouts) throws IOException {
        return of(root, rollouts, Map.of());
    }

    /** The same with each environment's learnable band (the cluster's RLEnvironments' spec.learnableBand). */
    public static RunStore of(Path root, List<RolloutSummary> rollouts, Map<String, LearnableBands.Band> bands) throws IOException {
        RunStore s = new RunStore(root, Long.MAX_VALUE);
        List<RolloutSummary> found = new ArrayList<>(rollouts);
        s.index = s.index(found, List.of(), bands);
        return s;
    }

    /** The index, rescanned first when it is older than the rescan interval. */
    public synchronized Index index() {
        Index i = index;
        if (i == null || System.currentTimeMillis() - i.scannedAtMs() >= rescanAfterMs) index = i = scan();
        return i;
    }

    /** The folder of rollout {@code id}; 404 naming it when the index has no such rollout. */
    public Path folder(String id) {
        if (id == null || id.isBlank()) throw ConsoleError.badRequest("id: the rollout's id is required (its folder under " + root + ")");
        RolloutSummary r = index().byId().get(id);
        if (r == null) throw ConsoleError.notFound("no rollout '" + RolloutQuery.clip(id) + "' under " + root + " (no result.json in such a folder)");
        return root.resolve(id);
    }

    public RolloutSummary summary(String id) {
        folder(id);
        return index().byId().get(id);
    }

    private Index scan() {
        List<RolloutSummary> found = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<Path> seen = new java.util.HashSet<>();
        Map<String, LearnableBands.Band> bands = new java.util.TreeMap<>();
        try {
            Files.walkFileTree(root, EnumSet.noneOf(java.nio.file.FileVisitOption.class), MAX_DEPTH, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    // a run's summary.json (several attempts) lies above its attempt folders: read before them
                    String bad = LearnableBands.read(dir, root.relativize(dir.resolve("summary.json")).toString(), bands);
                    if (bad != null) problems.add(bad);
                    Path result = dir.resolve(ResultFile.NAME);
                    if (!Files.exists(result, LinkOption.NOFOLLOW_LINKS)) return FileVisitResult.CONTINUE;
                    if (found.size() >= MAX_ROLLOUTS) {
                        problems.add("more than " + MAX_ROLLOUTS + " rollouts under " + root + ": the rest are not listed");
                        return FileVisitResult.TERMINATE;
                    }
                    seen.add(result);
                    Cached c = read(dir, result);
                    if (c.summary() != null) found.add(c.summary());
                    if (c.problem() != null) problems.add(c.problem());
                    return FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    problems.add(file + ": not read (" + e.getMessage() + ")");
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            problems.add(root + ": not read (" + e.getMessage() + ")");
        }
        cache.keySet().retainAll(seen);
        return index(found, problems, bands);
    }

    private Index index(List<RolloutSummary> found, List<String> problems, Map<String, LearnableBands.Band> bands) {
        found.sort(Comparator.comparing((RolloutSummary r) -> r.startedAt() == null ? "" : r.startedAt()).reversed()
                .thenComparing(RolloutSummary::id));
        Map<String, RolloutSummary> byId = new LinkedHashMap<>();
        for (RolloutSummary r : found) byId.put(r.id(), r);
        return new Index(List.copyOf(found), Map.copyOf(byId), List.copyOf(problems), System.currentTimeMillis(), Map.copyOf(bands));
    }

    private Cached read(Path dir, Path result) {
        try {
            BasicFileAttributes a = Files.readAttributes(result, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            Cached c = cache.get(result);
            if (c != null && c.modified().equals(a.lastModifiedTime()) && c.size() == a.size()) return c;
            String id = root.relativize(dir).toString().replace(dir.getFileSystem().getSeparator(), "/");
            if (id.isEmpty()) id = ".";
            Cached fresh;
            try {
                fresh = new Cached(a.lastModifiedTime(), a.size(), ResultFile.summary(id, dir), null);
            } catch (IOException | RuntimeException e) {
                fresh = new Cached(a.lastModifiedTime(), a.size(), ResultFile.refused(id, dir, e.getMessage()), "rollout " + id + ": " + e.getMessage());
            }
            cache.put(result, fresh);
            return fresh;
        } catch (IOException e) {
            return new Cached(null, 0, null, result + ": not read (" + e.getMessage() + ")");
        }
    }
}
