package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.files.TreeCopier;
import dev.crucible.verifier.grade.oracle.OracleFiles;
import dev.crucible.verifier.grade.oracle.OracleWorkers;
import dev.crucible.verifier.grade.oracle.WorkerFifos;
import dev.crucible.verifier.grade.oracle.WorkerHost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The sidecar's end of a rollout pod's oracle-worker container ({@code dev.crucible.contract.OracleContainer}):
 * the isolated oracle's workers start there, in a container of their own, since no container of a pod can make
 * a bubblewrap box. For each grading it copies the grading tree without the trusted test files (empty files stand
 * in for them, as /dev/null does in a local worker's box) into the folder the worker container shows as the grading
 * trees, on the grading volume beside the trees (hard links: a link per file, not a copy of its bytes); makes every
 * worker's FIFO pair in a folder the workers cannot write (so none can be swapped for a link or a file), and tells
 * the spawner to serve them. The grading process's requests ("N", "-N") come on a FIFO in the results folder, which
 * the worker container does not mount, and are relayed here to the spawner over its socket: a worker can neither
 * start nor end workers, nor read another grading's requests.
 * The spawner's connection is taken as the grading runner's is ({@link RunnerSocket}: the first one, the socket
 * removed at once).
 */
public final class OracleContainerHost implements WorkerHost, AutoCloseable {
    /** As many workers as the local OracleWorkers starts for one grading at most. */
    static final int MAX_WORKERS = 64;

    private final RunnerSocket spawner;
    private final Path volume;
    private final Path gradingTrees;
    private final Path copies;

    private OracleContainerHost(RunnerSocket spawner, Path volume, Path gradingTrees, Path copies) {
        this.spawner = spawner;
        this.volume = volume;
        this.gradingTrees = gradingTrees.toAbsolutePath().normalize();
        this.copies = copies;
    }

    /**
     * Listens on {@code socket} for the spawner, which has {@code connectWait}; {@code volume}: the oracle volume as
     * the sidecar mounts it; {@code gradingTrees}: where the grading trees are built (the worker container sees the
     * copies there); {@code copies}: where the copies are made (the worker container's view of the grading volume).
     */
    public static OracleContainerHost listen(Path socket, Path volume, Path gradingTrees, Path copies, Duration connectWait) throws IOException {
        for (String d : List.of("io", "ctl", "void")) Files.createDirectories(volume.resolve(d));
        Files.createDirectories(copies);
        Files.createDirectories(socket.toAbsolutePath().getParent());
        return new OracleContainerHost(RunnerSocket.listen(socket, connectWait, "the oracle-worker container"), volume, gradingTrees, copies);
    }

    @Override
    public String problem() {
        try {
            spawner.await();
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    @Override
    public Path base() {
        return volume.resolve("io").resolve("oracle-" + System.nanoTime());
    }

    @Override
    public Workers start(Path fifo, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env) {
        Path tree = root.toAbsolutePath().normalize();
        if (!tree.startsWith(gradingTrees)) throw new IllegalArgumentException("isolated oracle: " + root + " is not under " + gradingTrees);
        Path copy = copies.resolve(gradingTrees.relativize(tree).toString());
        Relay relay = null;
        try {
            RunnerSocket.Connection c = spawner.await();
            copyWithout(tree, copy, masked);
            makeFifos(fifo, shared);
            Files.createDirectories(spawn.toAbsolutePath().getParent());
            WorkerFifos.mkfifo(spawn);
            ObjectNode req = RunnerSocket.JSON.createObjectNode().put("op", "serve").put("dir", fifo.toString()).put("cwd", tree.toString());
            var argv = req.putArray("argv");
            List.of(python, "-I", "-B", "-c", OracleFiles.workerSource()).forEach(argv::add);
            // a process a graded test starts runs here too, through the box end of its relay (oracle_children)
            var child = req.putArray("child_argv");
            List.of(python, "-I", "-B", "-c", OracleFiles.childSource()).forEach(child::add);
            ObjectNode e = req.putObject("env");
            OracleWorkers.workerEnv(env, shared).forEach(e::put);
            c.send(req.toString());
            String ok = answer(c, Duration.ofSeconds(30)); // the spawner answers once worker 1 started
            if (ok == null || !ok.contains("\"ok\"")) throw new IOException("the oracle spawner did not take the grading: " + ok);
            relay = new Relay(spawn, fifo, c);
            return new Served(c, copy, relay, null);
        } catch (IOException | RuntimeException ex) {
            deleteLater(copy);
            String why = "the oracle-worker container: " + ex.getMessage();
            return new Served(null, copy, relay, why);
        }
    }

    /**
     * The tree as the worker sees it: every file but the trusted ones, which are empty; readable by the worker's uid.
     * Hard links where the copy is on the tree's file system (a link per file: 0.3 s for 5,100 files, where copying
     * their bytes took 3.7 to 8 s at load 40), a copy elsewhere; links are kept as links either way. A trusted file's
     * link is removed before any worker of this grading starts.
     */
    static void copyWithout(Path tree, Path copy, List<String> masked) throws IOException {
        if (Files.exists(copy, LinkOption.NOFOLLOW_LINKS)) run("rm", "-rf", "--", copy.toString());
        Set<Path> skip = new HashSet<>();
        masked.forEach(m -> skip.add(Path.of(m).normalize()));
        Files.createDirectories(copy.getParent());
        try {
            run("cp", "-a", "-l", "--", tree.toString(), copy.toString());
        } catch (IOException crossDevice) {
            if (Files.exists(copy, LinkOption.NOFOLLOW_LINKS)) run("rm", "-rf", "--", copy.toString());
            TreeCopier.copy(tree, copy, TreeCopier.Options.of(TreeCopier.Links.AS_IS).skippingFiles(skip::contains));
        }
        for (Path m : skip) {
            Path p = copy.resolve(m.toString()).normalize();
            if (!p.startsWith(copy) || !Files.isDirectory(p.getParent(), LinkOption.NOFOLLOW_LINKS)) continue;
            Files.deleteIfExists(p);
            Files.createFile(p);
        }
        // the worker container runs as the grading container's uid: readable (its mount is read-only). A file an
        // earlier command of this grading made is that uid's already, and not this process's to change: not an error.
        try {
            run("chmod", "-R", "go+rX", "--", copy.toString());
        } catch (IOException notOurs) {
            // what could be changed was
        }
    }

    /** Every worker's FIFO pair, made here: the folder stays the sidecar's, the workers cannot add to it. */
    private static void makeFifos(Path fifo, Path shared) throws IOException {
        Files.createDirectories(fifo.getParent());
        Files.setPosixFilePermissions(fifo.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(fifo);
        Files.setPosixFilePermissions(fifo, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(shared);
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        List<Path> all = new ArrayList<>();
        for (int n = 1; n <= MAX_WORKERS; n++) {
            all.add(fifo.resolve("w" + n + ".in"));
            all.add(fifo.resolve("w" + n + ".out"));
        }
        WorkerFifos.mkfifo(all.toArray(Path[]::new));
    }

    private static void run(String... argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException(String.join(" ", argv) + ": " + out.strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", argv));
        }
    }

    /** The spawner's next line, or an exception once {@code wait} passed (the connection is then closed: it is out of step). */
    private static String answer(RunnerSocket.Connection c, Duration wait) throws IOException {
        java.util.concurrent.CompletableFuture<String> line = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return c.in().readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            return line.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            c.close();
            throw new IOException("the oracle spawner did not answer in " + wait.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the oracle spawner");
        }
    }

    /** The copy goes on a thread of its own, off the time a trainer waits for the reward. */
    private static void deleteLater(Path copy) {
        Thread t = new Thread(() -> {
            try {
                if (Files.exists(copy, LinkOption.NOFOLLOW_LINKS)) run("rm", "-rf", "--", copy.toString());
            } catch (IOException | UncheckedIOException ignored) {
                // the volume goes with the pod
            }
        }, "oracle-tree-delete");
        t.setDaemon(true);
        t.start();
    }

    private record Served(RunnerSocket.Connection connection, Path copy, Relay relay, String problem) implements Workers {
        @Override
        public void close() {
            if (relay != null) relay.close();
            if (connection != null) {
                try {
                    connection.send("{\"op\": \"end\"}");
                    answer(connection, Duration.ofSeconds(10)); // every worker of this grading is gone
                } catch (IOException ignored) {
                    // the spawner is gone, and its workers with its container's end
                }
            }
            deleteLater(copy);
        }
    }

    @Override
    public void close() {
        spawner.close();
    }

    /**
     * Reads the grading process's requests off the spawn FIFO and sends each well-formed one to the spawner
     * ({"op": "spawn"|"kill", "n": N}, or "child"|"endchild" for a process a test starts, "cN"; the spawner answers none). Opened read-write: no end of file between the
     * grading process's writers, and the open does not wait for one.
     */
    private static final class Relay implements AutoCloseable {
        private final java.nio.channels.FileChannel channel;
        private final Path spawn;
        private final Path fifo;
        private volatile boolean closed;

        Relay(Path spawn, Path fifo, RunnerSocket.Connection c) throws IOException {
            this.spawn = spawn;
            this.fifo = fifo;
            channel = java.nio.channels.FileChannel.open(spawn, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
            Thread t = new Thread(() -> relay(c), "oracle-spawn-relay");
            t.setDaemon(true);
            t.start();
        }

        private void relay(RunnerSocket.Connection c) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4096);
            StringBuilder line = new StringBuilder();
            try {
                while (!closed && channel.read(b) >= 0) {
                    b.flip();
                    while (b.hasRemaining()) {
                        char ch = (char) (b.get() & 0xff);
                        if (ch != '\n') {
                            if (line.length() < 16) line.append(ch); // a longer line is no request
                            continue;
                        }
                        String l = line.toString().strip();
                        line.setLength(0);
                        if (l.matches("-?\\d{1,6}")) {
                            c.send("{\"op\": \"" + (l.startsWith("-") ? "kill" : "spawn") + "\", \"n\": " + l.replace("-", "") + "}");
                        } else if (l.matches("-?c\\d{1,7}")) { // a test's process (oracle_children): its FIFOs made here, in the sidecar's folder
                            String n = l.replace("-", "").substring(1);
                            if (!l.startsWith("-")) child(n);
                            c.send("{\"op\": \"" + (l.startsWith("-") ? "endchild" : "child") + "\", \"n\": " + n + "}");
                        }
                    }
                    b.clear();
                }
            } catch (IOException ended) {
                // closed at the grading's end, or the spawner's connection is gone (the grading's calls then fail)
            }
        }

        private void child(String n) {
            Path in = fifo.resolve("c" + n + ".in");
            try {
                if (!Files.exists(in, LinkOption.NOFOLLOW_LINKS)) WorkerFifos.mkfifo(in, fifo.resolve("c" + n + ".out"));
            } catch (IOException e) {
                // the relay in the grading box waits its start timeout and says so
            }
        }

        @Override
        public void close() {
            closed = true;
            try {
                channel.close(); // ends a read in progress
                Files.deleteIfExists(spawn);
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
