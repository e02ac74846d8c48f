package dev.crucible.verifier.toolchain;

import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the environment cache ({@link ExecEnvironments#cacheRoot()}) bounded. Every distinct setup (a new commit, a changed
 * setup script) makes a new prefix of a venv, a Go cache or a crate tree, and nothing removed them: a machine that derived
 * a few hundred repositories held 32 GiB of them and ran out of disk. Prefixes are kept by last use, the newest
 * {@code CRUCIBLE_ENV_CACHE_KEEP} (default 32), and none idle for more than {@code CRUCIBLE_ENV_CACHE_IDLE_DAYS}
 * (default 30). A prefix is in use while any process that set it up or ran an attempt in it lives: that process holds a
 * shared lock on its {@code .inuse} file (to its exit: attempts read the prefix long after setup's own lock is released),
 * and a prefix whose lock cannot be taken is never removed.
 */
public final class EnvCache {
    private EnvCache() {}

    static final String IN_USE = ".inuse";
    static final String LAST_USE = ".lastuse";
    private static final String EVICTING = ".evicting-";
    private static final Map<Path, FileLock> USED_HERE = new ConcurrentHashMap<>();

    /** Marks {@code prefix} used now and in use by this process until it exits. */
    static void using(Path prefix) throws IOException {
        Path stamp = prefix.resolve(LAST_USE);
        if (!Files.exists(stamp, LinkOption.NOFOLLOW_LINKS)) Files.createFile(stamp);
        Files.setLastModifiedTime(stamp, FileTime.from(Instant.now()));
        if (USED_HERE.containsKey(prefix)) return;
        FileChannel ch = FileChannel.open(prefix.resolve(IN_USE), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        try {
            USED_HERE.put(prefix, ch.lock(0, Long.MAX_VALUE, true));
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Empties {@code prefix} when its setup never finished: no {@code record} (environment.json, written last by a
     * successful setup). One Ctrl-C during {@code python3 -m venv} left a venv without pip that every later attempt
     * reused, grading "No module named pytest" as the agent's failure (hostred3 B3). A prefix cannot be built elsewhere
     * and renamed into place (a venv's scripts and setup's installs name its path), so the record is its completion
     * marker: called under the prefix's setup lock, where no attempt is past setup without having written it. Keeps the
     * lock and use files (locks are held on them). Returns how many entries it removed.
     */
    static int discardUnfinished(Path prefix, Path record) throws IOException {
        if (Files.exists(record, LinkOption.NOFOLLOW_LINKS)) return 0;
        int removed = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(prefix)) {
            for (Path p : ds) {
                if (List.of(".lock", IN_USE, LAST_USE).contains(p.getFileName().toString())) continue;
                TreeDelete.delete(p);
                removed++;
            }
        }
        return removed;
    }

    /**
     * The bound from the environment, then {@link #prune(Path, Path, int, Duration)}. A bad setting fails with its name; a cache
     * that cannot be tidied does not fail the caller.
     */
    static List<Path> prune(Path root, Path current) {
        int keep = number("CRUCIBLE_ENV_CACHE_KEEP", 32);
        Duration idle = Duration.ofDays(number("CRUCIBLE_ENV_CACHE_IDLE_DAYS", 30));
        try {
            return prune(root, current, keep, idle);
        } catch (IOException | RuntimeException e) {
            return List.of(); // a cache we cannot tidy is still a cache: the attempt goes on
        }
    }

    /**
     * Removes prefixes past the newest {@code keep} by last use, and any idle longer than {@code idle}, except {@code current}
     * and those in use. Returns the ones removed. A prefix is first renamed aside, so a planner never finds half of one.
     */
    public static List<Path> prune(Path root, Path current, int keep, Duration idle) throws IOException {
        List<Path> removed = new ArrayList<>();
        List<Path> entries = new ArrayList<>();
        Map<Path, Instant> lastUse = new java.util.HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path p : ds) {
                if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) continue;
                if (p.getFileName().toString().startsWith(EVICTING)) {
                    TreeDelete.delete(p); // left by a process that died while removing it
                    continue;
                }
                if (p.equals(current)) continue;
                entries.add(p);
                lastUse.put(p, lastUse(p));
            }
        }
        entries.sort(Comparator.comparing(lastUse::get).reversed());
        Instant cutoff = Instant.now().minus(idle);
        int kept = current == null ? 0 : 1;
        for (Path p : entries) {
            if (kept < keep && !lastUse.get(p).isBefore(cutoff)) {
                kept++;
                continue;
            }
            if (evict(root, p)) removed.add(p);
            else kept++;
        }
        return removed;
    }

    private static Instant lastUse(Path prefix) throws IOException {
        for (String f : List.of(LAST_USE, ".lock")) {
            Path stamp = prefix.resolve(f);
            if (Files.exists(stamp, LinkOption.NOFOLLOW_LINKS)) return Files.getLastModifiedTime(stamp, LinkOption.NOFOLLOW_LINKS).toInstant();
        }
        return Files.getLastModifiedTime(prefix, LinkOption.NOFOLLOW_LINKS).toInstant();
    }

    private static boolean evict(Path root, Path prefix) throws IOException {
        if (USED_HERE.containsKey(prefix)) return false;
        Path aside = root.resolve(EVICTING + prefix.getFileName() + "-" + Long.toHexString(System.nanoTime()));
        if (!Files.exists(prefix.resolve(IN_USE), LinkOption.NOFOLLOW_LINKS)) {
            Files.move(prefix, aside); // made before in-use locks existed: nobody can hold one
            TreeDelete.delete(aside);
            return true;
        }
        try (FileChannel ch = FileChannel.open(prefix.resolve(IN_USE), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return false;
            }
            if (l == null) return false; // another process runs in it
            try {
                Files.move(prefix, aside);
            } finally {
                l.release();
            }
        }
        TreeDelete.delete(aside);
        return true;
    }

    private static int number(String var, int dflt) {
        String v = System.getenv(var);
        if (v == null || v.isBlank()) return dflt;
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(var + " must be a whole number of at least 1, was '" + v + "'");
    }
}
