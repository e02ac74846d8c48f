package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One run per {@code --out} folder (host round 4, B2): a second run into a finished run's folder overwrote its result.json
 * (a Succeeded 1.0 was lost), and one into a running run's folder wrote a Failed result there while the first went on and
 * broke its trajectory. A folder that already holds a run's result or trajectory is refused, and the folder is locked
 * (an advisory lock on {@code .crucible-run.lock}, released when the process ends, SIGKILL included) for the run.
 */
final class OutLock implements AutoCloseable {
    static final String LOCK_FILE = ".crucible-run.lock";

    /** Why the folder cannot take this run. */
    static final class Refused extends Exception {
        Refused(String why) { super(why); }
    }

    private final FileChannel channel;
    private final FileLock lock;

    private OutLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Locks {@code dir} for this run, or says why not: another run holds it, or a run already wrote into it. */
    static OutLock take(Path dir) throws Refused {
        Path file = dir.resolve(LOCK_FILE);
        FileChannel ch;
        try {
            if (Files.isSymbolicLink(file)) throw new Refused(dir + ": " + LOCK_FILE + " is a symbolic link; remove it or choose another folder");
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new Refused(dir + ": its lock file could not be opened (" + e.getMessage() + ")");
        }
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (IOException | OverlappingFileLockException e) {
            l = null;
        }
        if (l == null) {
            close(ch);
            throw new Refused(dir + " is in use by another crucible run; wait for it or choose another folder");
        }
        String held = previousRun(dir);
        if (held != null) {
            OutLock mine = new OutLock(ch, l);
            mine.close();
            throw new Refused(dir + " already holds a run (" + held + "); its results would be overwritten: choose another folder or remove it");
        }
        return new OutLock(ch, l);
    }

    /**
     * A run's file in {@code dir} or in a folder directly under it, or null. Only what a run writes counts (a regular
     * result.json, a real trajectory/segments folder): a link planted under those names is replaced by the run, never
     * written through (OutFolderLinksTest), and is no earlier run.
     */
    private static String previousRun(Path dir) throws Refused {
        String here = runFile(dir);
        if (here != null) return here;
        try (var s = Files.list(dir)) {
            for (Path sub : s.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                String f = runFile(sub);
                if (f != null) return dir.relativize(sub).resolve(f).toString();
            }
        } catch (IOException e) {
            throw new Refused(dir + ": could not be listed (" + e.getMessage() + ")");
        }
        return null;
    }

    private static String runFile(Path d) {
        if (Files.isRegularFile(d.resolve("result.json"), LinkOption.NOFOLLOW_LINKS)) return "result.json";
        if (Files.isDirectory(d.resolve("trajectory/segments"), LinkOption.NOFOLLOW_LINKS)) return "trajectory/segments";
        return null;
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // released when the channel closes
        }
        close(channel);
    }

    private static void close(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing held
        }
    }
}
