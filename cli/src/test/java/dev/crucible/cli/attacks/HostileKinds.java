package dev.crucible.cli.attacks;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;

/**
 * The kinds of hostile file an agent (or a derived repo) can leave, each planted at {@link #TARGETS}: where the
 * host's readers look hardest (the monitor's git watch, a source file, a protected test file, a dependency file
 * the execution planner reads). One row per kind; a new kind is one more constant.
 */
enum HostileKinds {
    FIFO("fifo") {
        @Override void plant(HostileCase c, Path p) throws Exception { mkfifo(p); }
    },
    LINK_SECRET("link to a 0600 host file") {
        @Override void plant(HostileCase c, Path p) throws Exception { Files.createSymbolicLink(p, c.secret); }
    },
    LINK_DEV_ZERO("link to /dev/zero") {
        @Override void plant(HostileCase c, Path p) throws Exception { Files.createSymbolicLink(p, Path.of("/dev/zero")); }
    },
    DEVICE("device node (char 1,5: zero)") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            Assumptions.assumeTrue(run("mknod", p.toString(), "c", "1", "5") == 0, "mknod refused here (no CAP_MKNOD)");
        }
    },
    SPARSE_2G("2 GiB sparse file") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                f.setLength((2L << 30) + 4096);
            }
        }
    },
    /** Regular while listed, a FIFO (no writer: an open blocks) when read: flipped by a thread for the whole read. */
    FLIPPING("file flipping regular/FIFO") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            Files.writeString(p, "x = 1\n");
            c.flipping.add(p);
        }
    },
    DEEP_DIR("directory 2100 levels deep (past PATH_MAX)") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (p.endsWith("HEAD") || p.endsWith("requirements.txt")) return; // once is enough: the tree is what is walked
            Files.createDirectories(p);
            String rel = String.join("/", java.util.Collections.nCopies(2100, "dd"));
            if (new ProcessBuilder("mkdir", "-p", rel).directory(p.toFile()).inheritIO().start().waitFor() != 0) {
                throw new IOException("mkdir -p of the deep tree failed");
            }
        }
    },
    BAD_NAMES("names with a newline and invalid UTF-8") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (!p.endsWith("evil.py")) return;
            // bytes Java cannot name: made by printf, as an agent's shell would
            String dir = p.getParent().toString();
            if (run("sh", "-c", "printf 'x = 1\\n' > \"$1/$(printf 'new\\nline.py')\" && printf 'x = 2\\n' > \"$1/$(printf 'bad\\377\\376.py')\""
                    + " && mkdir \"$1/$(printf 'dir\\377')\" && printf 'x = 3\\n' > \"$1/$(printf 'dir\\377')/in.py\"", "sh", dir) != 0) {
                throw new IOException("could not make the undecodable names");
            }
            Files.writeString(p, "x = 4\n");
        }
    },
    HARD_LINK_HOST("hard link to a host file") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (!p.endsWith("evil.py")) return; // one name is enough; the host file must come out unchanged
            try {
                Files.createLink(p, c.secret);
            } catch (IOException e) {
                Assumptions.abort("no hard link to the host file here: " + e);
            }
            c.hardLinked = true;
        }
    };

    /** Where each kind goes: the monitor's git watch, a source file, a protected test file, a dependency file. */
    static final List<String> TARGETS = List.of(".git/HEAD", "calc/evil.py", "tests/conftest.py", "requirements.txt");

    final String label;

    HostileKinds(String label) {
        this.label = label;
    }

    abstract void plant(HostileCase c, Path p) throws Exception;

    /** Plants this kind at every target of the case's workspace (replacing what is there). */
    void plantAll(HostileCase c) throws Exception {
        plantAll(c, TARGETS);
    }

    void plantAll(HostileCase c, List<String> targets) throws Exception {
        for (String t : targets) {
            Path p = c.ws.resolve(t);
            Files.deleteIfExists(p);
            plant(c, p);
        }
        if (!c.flipping.isEmpty()) c.startFlipping();
    }

    static void mkfifo(Path p) throws Exception {
        if (run("mkfifo", p.toString()) != 0) throw new IOException("mkfifo " + p + " failed");
    }

    static int run(String... cmd) throws Exception {
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!pr.waitFor(60, TimeUnit.SECONDS)) {
            pr.destroyForcibly();
            return -1;
        }
        return pr.exitValue();
    }

    /** Releases a reader blocked opening a FIFO (a read-write open never blocks on Linux, and gives it a writer). */
    static void releaseFifos(List<Path> paths) {
        for (Path p : paths) {
            try {
                if (Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                        f.getFD();
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // gone or not a FIFO: nothing blocks on it
            }
        }
    }

    /** The flipping thread's loop: regular file, then FIFO, again, until stopped. */
    static Thread flipper(List<Path> paths, AtomicBoolean stop) {
        List<Path> ps = new ArrayList<>(paths);
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                for (Path p : ps) {
                    try {
                        Files.deleteIfExists(p);
                        mkfifo(p);
                        Thread.sleep(2);
                        Files.deleteIfExists(p);
                        Files.writeString(p, "x = 1\n");
                    } catch (Exception e) {
                        // a reader's rename or the test's cleanup raced us: go on
                    }
                }
            }
        }, "hostile-flipper");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
