package dev.crucible.verifier.pristine;

import dev.crucible.files.TreeDelete;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Removes used grading trees on a thread of its own (nothing reads one once its report is made), and bounds how long
 * an episode's close waits for that: an agent's 150,000 files take minutes to unlink on a disk that discards on unlink
 * (rt34 many-files: the CLI wrote result.json and then never exited). Past the bound the removal stops and what is
 * left is handed off: moved out of the state folder into the temporary folder and removed there by a detached
 * {@code rm -rf} that outlives the CLI, or, where that folder is another file system (the attempt's disk volume),
 * left in place for the volume's unmount.
 */
public final class TreeRemoval {
    /** How long close waits for a removal before handing the rest off. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    private volatile Thread thread;
    private volatile Path tree;
    private final AtomicBoolean stop = new AtomicBoolean();

    /** Starts removing {@code t}, after the previous removal ended (the next grading tree may take its name). */
    public void start(Path t) {
        await();
        stop.set(false);
        Thread th = new Thread(() -> {
            try {
                TreeDelete.delete(t, stop::get);
            } catch (IOException | RuntimeException e) {
                // left for the next grading's delete of the same name, or the state folder's removal
            }
        }, "crucible-tree-removal");
        th.setDaemon(true);
        tree = t;
        thread = th;
        th.start();
    }

    /** Waits for the running removal to end, however long it takes (a new grading tree of the same name follows). */
    public void await() {
        join(thread, 0);
        thread = null;
    }

    /**
     * Waits at most {@code wait}; a removal still running then is stopped and its rest handed off. Returns null when
     * the removal ended in time, else where the rest went.
     */
    public String finish(Duration wait) {
        Thread th = thread;
        if (th == null) return null;
        join(th, Math.max(1, wait.toMillis()));
        thread = null;
        if (!th.isAlive()) return null;
        stop.set(true);
        join(th, 5_000); // it stops before its next entry
        return handOff(tree);
    }

    /**
     * Removes {@code t}, waiting at most {@code within} (a cleanup after the run's result: the CLI must end however big or
     * slow the tree is). Returns null when it is gone, else what is left and where ({@link #handOff}).
     */
    static String removeWithin(Path t, Duration within) {
        if (t == null || !Files.exists(t, LinkOption.NOFOLLOW_LINKS)) return null;
        AtomicBoolean stop = new AtomicBoolean();
        String[] failed = {null};
        Thread th = new Thread(() -> {
            try {
                TreeDelete.delete(t, stop::get);
            } catch (IOException | RuntimeException e) {
                failed[0] = String.valueOf(e.getMessage());
            }
        }, "crucible-tree-removal-bounded");
        th.setDaemon(true); // one stuck in a syscall (a stalled file system) never holds the JVM's exit
        th.start();
        join(th, Math.max(1, within.toMillis()));
        if (th.isAlive()) {
            stop.set(true);
            join(th, 2_000); // it stops before its next entry; one stuck in a call is left to itself
        } else if (failed[0] == null) {
            return Files.exists(t, LinkOption.NOFOLLOW_LINKS) ? handOff(t) : null;
        }
        String left = handOff(t);
        return left == null ? null : left + (failed[0] == null ? " (not removed within " + within.toMillis() + " ms)" : " (" + failed[0] + ")");
    }

    /** Moves {@code t} to the temporary folder and starts a detached rm -rf on it; left in place where that cannot be done. */
    static String handOff(Path t) {
        if (t == null || !Files.exists(t, LinkOption.NOFOLLOW_LINKS)) return null;
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        try {
            if (!Files.getFileStore(t).equals(Files.getFileStore(tmp))) return t + ": left for its volume's removal";
            Path dst = tmp.resolve("crucible-removing-" + System.nanoTime() + "-" + t.getFileName());
            Files.move(t, dst, StandardCopyOption.ATOMIC_MOVE); // a rename: instant, whatever the tree holds
            // chmod first: rm cannot enter a folder its owner may not read (an agent's chmod 000), and a user who is not root has no
            // other right over it; chmod -R never follows a link inside the tree, and nothing but this process can reach it now
            new ProcessBuilder("setsid", "sh", "-c", "chmod -R u+rwx -- \"$1\" 2>/dev/null; exec rm -rf --one-file-system -- \"$1\"", "sh",
                    dst.toString())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return dst + ": being removed by a detached rm -rf";
        } catch (IOException | RuntimeException e) {
            return t + ": left in place (" + e.getMessage() + ")";
        }
    }

    private static void join(Thread th, long ms) {
        if (th == null) return;
        try {
            th.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
