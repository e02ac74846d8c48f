package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What this machine and JVM give boxes: whether bubblewrap can make one here (probed once with a
 * real box), whether we are root, and the uid each open box takes (root only).
 */
final class BoxHost {
    /** The first uid boxes take when the CLI is root; each box gets its own (see {@link #nextUid}). */
    static final int UID_BASE = 200_000;
    static final boolean ROOT = processUid() == 0;
    static volatile boolean stopping; // Box.stopOpening
    private static final AtomicInteger SLOT = new AtomicInteger();
    private static final Set<Integer> UIDS_IN_USE = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static volatile Box.Availability availability;

    private BoxHost() {
    }

    static Box.Availability availability() {
        Box.Availability a = availability;
        if (a == null) availability = a = probe();
        return a;
    }

    /** A closed box's uid may be taken again. */
    static void releaseUid(int uid) {
        UIDS_IN_USE.remove(uid);
    }

    /** uid group → {uid, open boxes}: see {@link Box#open(BoxSpec, String)}. */
    private static final java.util.Map<String, int[]> GROUPS = new java.util.HashMap<>();

    /** The uid of {@code group}'s open boxes, or a new one for its first (null: always a new one). */
    static int takeUid(String group) throws BoxUnavailableException {
        if (group == null) return nextUid();
        synchronized (GROUPS) {
            int[] g = GROUPS.get(group);
            if (g != null) {
                g[1]++;
                return g[0];
            }
            int uid = nextUid();
            GROUPS.put(group, new int[] {uid, 1});
            return uid;
        }
    }

    /** A box of {@code group} closed: its uid may be taken again once the group's last box closed. */
    static void releaseUid(String group, int uid) {
        if (group == null) {
            releaseUid(uid);
            return;
        }
        synchronized (GROUPS) {
            int[] g = GROUPS.get(group);
            if (g == null || g[0] != uid || --g[1] > 0) return;
            GROUPS.remove(group);
            releaseUid(uid);
        }
    }

    /**
     * Distinct per open box in this JVM, and per JVM (pid-derived), so parallel attempts and their
     * grading never share an id (nor the cgroup named after it, which closing a box empties): 64 boxes
     * per JVM at once. A uid is taken again only after its box closed, however long a box stays open
     * (an agent's box, a grading interpreter started early).
     */
    static int nextUid() throws BoxUnavailableException {
        int base = UID_BASE + (int) (ProcessHandle.current().pid() % 4000) * 64;
        for (int i = 0; i < 64; i++) {
            int uid = base + Math.floorMod(SLOT.getAndIncrement(), 64);
            if (UIDS_IN_USE.add(uid)) return uid;
        }
        throw new BoxUnavailableException("64 boxes are open in this process; none can be opened until one closes");
    }

    private static Box.Availability probe() {
        Path bwrap = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"), new String[] {"/usr/bin"})
                .flatMap(Stream::of).filter(d -> !d.isEmpty()).map(d -> Path.of(d, "bwrap")).filter(Files::isExecutable).findFirst().orElse(null);
        if (bwrap == null) return new Box.Availability(null, "bubblewrap (bwrap) is not installed");
        if (ROOT && !Files.isExecutable(Path.of("/usr/bin/setpriv"))) return new Box.Availability(bwrap, "setpriv (util-linux) is missing: root cannot drop to a box uid");
        List<String> cmd = new ArrayList<>();
        if (ROOT) cmd.addAll(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        cmd.addAll(List.of(bwrap.toString(), "--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0", "--cap-drop", "ALL", "--die-with-parent"));
        cmd.addAll(HostView.systemArgs());
        cmd.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--", "/bin/true"));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Box.Availability(bwrap, "a trial box did not finish in 20 s");
            }
            if (p.exitValue() != 0) {
                return new Box.Availability(bwrap, "bubblewrap cannot create an unprivileged user namespace here (" + (out.isEmpty() ? "exit " + p.exitValue() : out) + ")");
            }
            return new Box.Availability(bwrap, null);
        } catch (IOException e) {
            return new Box.Availability(bwrap, "cannot run bwrap: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Box.Availability(bwrap, "interrupted while trying bwrap");
        }
    }

    static int processUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Integer.parseInt(line.split("\\s+")[1]);
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return "root".equals(System.getProperty("user.name")) ? 0 : 1000;
    }

    /**
     * Can the box's uid (gid the same, no other groups) open {@code p} by name: every parent searchable by
     * it (as others, or as group when the parent's group is the box's, see {@link Box#letThrough}), and the
     * path itself usable.
     */
    static boolean reachable(Path p, boolean writable, int uid) {
        try {
            Path real = p.toRealPath();
            for (Path d = real.getParent(); d != null; d = d.getParent()) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(d);
                if (perms.contains(PosixFilePermission.OTHERS_EXECUTE)) continue;
                if (!perms.contains(PosixFilePermission.GROUP_EXECUTE) || ((Integer) Files.getAttribute(d, "unix:gid")) != uid
                        || ((Integer) Files.getAttribute(d, "unix:uid")) == uid) return false; // an owner is judged by the owner bits
            }
            if (writable) return true; // handed over to the box's uid
            Set<PosixFilePermission> own = Files.getPosixFilePermissions(real);
            return own.contains(PosixFilePermission.OTHERS_READ) && (!Files.isDirectory(real) || own.contains(PosixFilePermission.OTHERS_EXECUTE))
                    || ((Integer) Files.getAttribute(real, "unix:uid")) == uid;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
