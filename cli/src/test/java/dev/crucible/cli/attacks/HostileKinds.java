package dev.crucible.cli.attacks;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The kinds of hostile file an agent (or a derived repo) can leave, each planted at {@link #TARGETS}: where the
 * host's readers look hardest (the monitor's git watch, a source file, a protected test file, a dependency file
 * the execution planner reads). One row per kind; a new kind is one more constant.
 */
enum HostileKinds {
    FIFO("fifo") {
        @Override void plant(HostileCase c, Path p) throws Exception { c.agent("mkfifo \"$1\"", p); }
    },
    LINK_SECRET("link to a 0600 host file") {
        @Override void plant(HostileCase c, Path p) throws Exception { c.agent("ln -s \"$2\" \"$1\"", p); }
    },
    LINK_DEV_ZERO("link to /dev/zero") {
        @Override void plant(HostileCase c, Path p) throws Exception { c.agent("ln -s /dev/zero \"$1\"", p); }
    },
    DEVICE("device node (char 1,5: zero)") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            Assumptions.assumeTrue(c.agentExit("mknod \"$1\" c 1 5", p) == 0, "mknod refused for " + c.who() + " (no CAP_MKNOD)");
        }
    },
    SPARSE_2G("2 GiB sparse file") {
        @Override void plant(HostileCase c, Path p) throws Exception { c.agent("truncate -s " + ((2L << 30) + 4096) + " \"$1\"", p); }
    },
    /** Regular while listed, a FIFO (no writer: an open blocks) when read: flipped by the agent's own process for the whole read. */
    FLIPPING("file flipping regular/FIFO") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            c.agent("printf 'x = 1\\n' > \"$1\"", p);
            c.flipping.add(p);
        }
    },
    DEEP_DIR("directory 2100 levels deep (past PATH_MAX)") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (p.endsWith("HEAD") || p.endsWith("requirements.txt")) return; // once is enough: the tree is what is walked
            // mkdir -p from inside: no single path it is given is past PATH_MAX
            c.agent("mkdir -p \"$1\" && cd \"$1\" && mkdir -p \"$(printf 'dd/%.0s' $(seq 2100))\"", p);
        }
    },
    BAD_NAMES("names with a newline and invalid UTF-8") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (!p.endsWith("evil.py")) return;
            // bytes Java cannot name: made by printf, as an agent's shell would
            c.agent("d=$(dirname \"$1\") && printf 'x = 1\\n' > \"$d/$(printf 'new\\nline.py')\" && printf 'x = 2\\n' > \"$d/$(printf 'bad\\377\\376.py')\""
                    + " && mkdir \"$d/$(printf 'dir\\377')\" && printf 'x = 3\\n' > \"$d/$(printf 'dir\\377')/in.py\" && printf 'x = 4\\n' > \"$1\"", p);
        }
    },
    HARD_LINK_HOST("hard link to a host file") {
        @Override void plant(HostileCase c, Path p) throws Exception {
            if (!p.endsWith("evil.py")) return; // one name is enough; the host file must come out unchanged
            // an unprivileged agent is refused a link to a file it cannot read (fs.protected_hardlinks): that skip is the answer
            Assumptions.assumeTrue(c.agentExit("ln \"$2\" \"$1\"", p) == 0, "no hard link to the host file for " + c.who() + " here");
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

    /**
     * The flipping loop, as the agent would run it (python, as the case's agent uid): regular file, then FIFO, again,
     * every 2 ms, until the case ends it. Its arguments are the paths.
     */
    static final String FLIPPER = String.join("\n",
            "import os, sys, time",
            "while True:",
            "    for p in sys.argv[1:]:",
            "        try:",
            "            os.unlink(p) if os.path.lexists(p) else None",
            "            os.mkfifo(p)",
            "            time.sleep(0.002)",
            "            os.unlink(p)",
            "            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)",
            "            os.write(fd, b'x = 1\\n')",
            "            os.close(fd)",
            "        except OSError:",
            "            pass  # a reader's rename or the case's cleanup raced us: go on",
            "");
}
