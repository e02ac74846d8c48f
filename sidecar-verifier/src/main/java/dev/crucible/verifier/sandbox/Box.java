package dev.crucible.verifier.sandbox;

import dev.crucible.verifier.exec.ProcessTreeKiller;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one sandbox of agent commands and graded commands: bubblewrap in a new user namespace with
 * no capabilities, no network, its own PID/IPC/UTS/mount/cgroup namespaces, a fresh /proc, /dev
 * and size-limited /tmp, and a minimal file system ({@link HostView} plus what the {@link BoxSpec}
 * names; never a bind of /). As root the launcher first joins the box's cgroups, then drops to an
 * unprivileged uid of its own (root inside the box maps to it) with setpriv; folders the box may
 * write are handed to that uid. Paths that uid cannot reach by name (under /root, a 0700 state
 * folder) are bind-mounted by the still-root launcher into a staging tmpfs in a private mount
 * namespace, and bwrap binds them from there. File descriptors 3 and up pass through unchanged.
 *
 * <p>Limits: cgroups when root (memory, pids, CPU quota, CPU time watched), else rlimits; disk by the
 * size-capped {@link DiskVolume} the writable folders lie on when the spec names one (its filling up is
 * seen within 250 ms), else the writable folders' size is checked every 2 s. A watcher ends the box when one is hit and
 * {@link #limitExceeded} says which. {@link #close} kills what is left and removes the cgroups.
 */
public final class Box implements AutoCloseable {
    /** bwrap's path and, when it cannot make a box here, why ({@code problem} null when it can). */
    public record Availability(Path bwrap, String problem) {
        public boolean ok() { return problem == null; }
    }

    /** The first uid boxes take when the CLI is root; each box gets its own (see {@link BoxHost#nextUid}). */
    static final int UID_BASE = BoxHost.UID_BASE;
    /** The launcher's descriptors for copied-in files start here, far above the caller's (fd 3 is grading's channel); bwrap closes them. */
    static final int FIRST_DATA_FD = 60;
    /** Whether this JVM runs as root (boxes then drop to their own uid and use cgroups). */
    public static final boolean ROOT = BoxHost.ROOT;
    /** Folders some open box was let through ({@link #letThrough}); one box at a time per folder. */
    private static final Set<Path> LET_THROUGH = new java.util.HashSet<>();

    private final BoxSpec spec;
    private final Availability bwrap;
    private final int uid;
    private final Cgroups cgroups;
    private final String cgroupProblem;
    private final Path stage;
    private final Map<Long, Long> attached = new java.util.concurrent.ConcurrentHashMap<>(); // pid -> start time: a reused pid is not ours
    private final Thread watcher;
    private volatile String exceeded;
    private volatile boolean closed;
    private volatile Traversal traversal;
    private final String uidGroup; // its uid's group (null: its own uid), released with it

    private Box(BoxSpec spec, Availability bwrap, int uid, String uidGroup, Cgroups cgroups, String cgroupProblem, Path stage) {
        this.spec = spec;
        this.bwrap = bwrap;
        this.uid = uid;
        this.uidGroup = uidGroup;
        this.cgroups = cgroups;
        this.cgroupProblem = cgroupProblem;
        this.stage = stage;
        this.watcher = new Thread(this::watch, "box-watch-" + spec.label());
        watcher.setDaemon(true);
    }

    public static void stopOpening() { BoxHost.stopping = true; } // no box opens from now on: a signal's hook removes what boxes made

    /** Whether boxes can be made on this machine (probed once per JVM with a real box). */
    public static Availability availability() { return BoxHost.availability(); }

    /** A box for {@code spec}; {@link BoxUnavailableException} when bubblewrap cannot make one here. */
    public static Box open(BoxSpec spec) throws IOException {
        return open(spec, null);
    }

    /**
     * A box whose uid is shared by every open box of the same {@code uidGroup} (null: a uid of its own). One grading's
     * boxes (the graded command's, the isolated oracle's workers and the processes its tests start) hand files to each
     * other through one scratch folder: pytest makes its folders there 0700, and a box opened later took them over
     * (chowned to its uid) from the grading process (microsoft/markitdown's CLI tests: the output file a test's program
     * wrote was not there for the test). Each box still has its own namespaces, mounts and cgroups.
     */
    public static Box open(BoxSpec spec, String uidGroup) throws IOException {
        if (BoxHost.stopping) throw new BoxUnavailableException("this process is stopping (a signal): no new box");
        Availability a = availability();
        if (!a.ok()) throw new BoxUnavailableException(a.problem());
        int uid = ROOT ? BoxHost.takeUid(uidGroup) : BoxHost.processUid();
        try {
            return open(spec, a, uid, uidGroup);
        } catch (IOException | RuntimeException e) {
            if (ROOT) BoxHost.releaseUid(uidGroup, uid);
            throw e;
        }
    }

    private static final java.util.concurrent.atomic.AtomicLong SERIAL = new java.util.concurrent.atomic.AtomicLong();
    public static final String STAGE_PREFIX = "crucible-box-"; // + its CLI's pid and start: a later run sweeps what a dead one left

    private static Box open(BoxSpec spec, Availability a, int uid, String uidGroup) throws IOException {
        Cgroups cg = null;
        String why = null;
        if (ROOT) {
            String[] w = new String[1];
            if (Cgroups.usable(w).isPresent()) {
                try {
                    cg = Cgroups.create("box-" + ProcessHandle.current().pid() + "-" + uid + "-" + SERIAL.incrementAndGet(), spec.limits());
                } catch (IOException e) {
                    why = "could not create cgroups: " + e.getMessage();
                }
            } else {
                why = w[0];
            }
        } else {
            why = "not root: cgroups cannot be created";
        }
        Path stage = ROOT ? Files.createTempDirectory(STAGE_PREFIX + dev.crucible.verifier.exec.ProcessTable.selfTag() + "-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"))) : null;
        Box b = new Box(spec, a, uid, uidGroup, cg, why, stage);
        for (Path w : spec.writable()) b.handOver(w);
        for (Path w : spec.moved().keySet()) b.handOver(w);
        b.watcher.start();
        return b;
    }

    /**
     * The argv that runs {@code argv} in the box with {@code cwd} as working folder. {@code env} is
     * the environment the launcher is started with (it passes into the box); its PATH is rewritten
     * to what exists inside.
     */
    public List<String> wrap(List<String> argv, Path cwd, Map<String, String> env) {
        return wrap(argv, cwd, env, null);
    }

    /**
     * A read-only path inside a writable folder (a protected file, node_modules) is the agent's to replace
     * between commands: bound only while it still lies inside that folder, never through a link out of it
     * (the box would show the host folder the link names).
     */
    boolean bindable(Path r) {
        if (!Files.exists(r)) return false;
        for (Path w : spec.writable()) {
            if (!r.startsWith(w)) continue;
            try {
                return r.toRealPath().startsWith(w.toRealPath());
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * As {@link #wrap(List, Path, Map)}; the launcher first opens {@code channel} (a FIFO, may be null) for
     * writing as fd 3, which passes into the box: the executor then needs no shell of its own to open it.
     */
    public List<String> wrap(List<String> argv, Path cwd, Map<String, String> env, Path channel) {
        return launcher(argv, cwd, env, channel, false);
    }

    /** As {@link #wrap(List, Path, Map)} with {@code argv} as the box's PID 1 (bwrap's {@code --as-pid-1}): see {@link BoxSession}. */
    List<String> wrapAsInit(List<String> argv, Path cwd, Map<String, String> env) { return launcher(argv, cwd, env, null, true); }

    private List<String> launcher(List<String> argv, Path cwd, Map<String, String> env, Path channel, boolean init) {
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        List<Path> tools = HostView.toolchains(path, env);
        List<Bind> binds = binds(tools);
        List<String> script = new ArrayList<>();
        script.add("set -e");
        if (channel != null) script.add("exec 3>" + q(channel.toString()));
        if (cgroups != null) for (Path f : cgroups.procsFiles()) script.add("echo $$ > " + q(f.toString()));
        List<String> bw = new ArrayList<>(List.of(bwrap.bwrap().toString(), "--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0",
                "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "crucible"));
        if (spec.network()) bw.add("--share-net");
        if (init) bw.add("--as-pid-1");
        bw.addAll(HostView.systemArgs());
        // Every tmpfs the box gets is sized: tmpfs is host RAM, and without a memory limit nothing else bounds it. bwrap's /dev
        // is an unsized tmpfs, so its /dev/shm gets a sized tmpfs of its own and /dev itself is read-only (its device nodes
        // still work: writing to a device never needs a writable mount).
        String tmp = Long.toString(spec.limits().tmpBytes());
        bw.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", tmp, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                "--size", tmp, "--tmpfs", "/tmp"));
        if (spec.home() != null && spec.home().startsWith("/tmp/")) bw.addAll(List.of("--dir", spec.home()));
        int staged = 0;
        List<String> mounts = new ArrayList<>(); // source, mount point: passed as arguments (see below)
        for (Bind b : binds) {
            String src = b.src().toString();
            if (ROOT && !BoxHost.reachable(b.src(), b.writable(), uid)) {
                // The mount point is made here, not by the launcher: each mkdir there would be a process of its
                // own. The staged mount stays writable in the launcher's private namespace, which the box never
                // sees (bwrap leaves it behind at pivot_root); bwrap's own --ro-bind is what the box gets.
                Path s = stage.resolve(Integer.toString(staged++));
                try {
                    if (Files.isDirectory(b.src())) Files.createDirectories(s);
                    else if (!Files.exists(s)) Files.createFile(s);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("box staging folder " + s + ": " + e.getMessage(), e);
                }
                mounts.add(src);
                mounts.add(s.toString());
                src = s.toString();
            }
            bw.addAll(List.of(b.writable() ? "--bind" : "--ro-bind", src, b.dest().toString()));
        }
        for (Path sc : spec.scratch()) { // after the read-only folder they lie in
            if (Files.isDirectory(sc, LinkOption.NOFOLLOW_LINKS)) bw.addAll(List.of("--size", Long.toString(spec.limits().tmpBytes()), "--tmpfs", sc.toString()));
        }
        // named files are copied in from a descriptor the launcher opens: a bind would name their folder in /proc/self/mountinfo
        int fd = FIRST_DATA_FD;
        for (Map.Entry<Path, Path> f : spec.files().entrySet()) {
            if (!Files.isRegularFile(f.getKey())) continue;
            script.add("exec " + fd + "<" + q(f.getKey().toString()));
            bw.addAll(List.of("--perms", Files.isExecutable(f.getKey()) ? "0555" : "0444", "--ro-bind-data", Integer.toString(fd++),
                    f.getValue().toAbsolutePath().normalize().toString()));
        }
        bw.addAll(BoxMasks.args(spec.masks())); // after every bind they lie in, before the root is made read-only
        if (!mounts.isEmpty()) script.add(LauncherArgv.MOUNT_LOOP);
        List<Path> visible = binds.stream().map(Bind::dest).toList();
        bw.addAll(List.of("--remount-ro", "/")); // the box's own root (where /etc and the mount points live) read-only too
        bw.addAll(List.of("--setenv", "PATH", HostView.boxPath(path, tools, visible), "--chdir", cwd.toAbsolutePath().normalize().toString(), "--"));

        script.addAll(BoxEnforcement.rlimits(spec.limits(), cgroups != null)); // the shell's own ulimit: no prlimit process; inherited through setpriv and bwrap
        List<String> exec = new ArrayList<>();
        if (ROOT) exec.addAll(List.of("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        exec.addAll(bw);
        script.add("exec \"$@\"");

        return LauncherArgv.of(staged > 0, script, mounts, exec, argv);
    }

    private List<Bind> binds(List<Path> tools) {
        List<Bind> binds = new ArrayList<>();
        for (Path t : tools) binds.add(new Bind(t, t, false));
        for (Path w : spec.writable()) binds.add(new Bind(w, w, true));
        spec.moved().forEach((src, dest) -> binds.add(new Bind(src, dest, true)));
        for (Path r : spec.readOnly()) if (bindable(r)) binds.add(new Bind(r, r, false));
        spec.shownAt().forEach((src, dest) -> { if (bindable(src)) binds.add(new Bind(src, dest, false)); });
        // the host's root bound over the box's would show the box every host file (host round 6, B3: a toolchain root of "/")
        binds.removeIf(b -> b.dest().toAbsolutePath().normalize().getNameCount() == 0 || b.src().toAbsolutePath().normalize().getNameCount() == 0);
        binds.sort(Comparator.comparingInt(b -> b.dest().getNameCount())); // parents first: protected paths after their workspace
        return binds;
    }

    /** The PATH a command launched by {@link #wrap} with {@code env} sees inside the box (bwrap's {@code --setenv PATH}). */
    public String insidePath(Map<String, String> env) {
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        List<Path> tools = HostView.toolchains(path, env);
        return HostView.boxPath(path, tools, binds(tools).stream().map(Bind::dest).toList());
    }

    BoxSpec spec() { return spec; }
    /** The processes in the box's cgroups now; null without cgroups. */
    public List<Long> members() { return cgroups == null ? null : cgroups.members(); }

    /** The launcher's pid (for rlimit-only boxes, whose processes are found by their tree). */
    public void attach(long pid) { attached.putAll(ProcessTreeKiller.startsOf(List.of(pid))); }

    /** The limit that ended the box, if one did: the reason result.json gives. */
    public Optional<String> limitExceeded() {
        if (exceeded == null) check();
        return Optional.ofNullable(exceeded);
    }

    /**
     * Notes a wrapped command's exit status: without cgroups, the kernel's rlimit signals (SIGXCPU,
     * SIGXFSZ) are the only sign that a limit was hit; the file size limit applies with cgroups too.
     */
    public void noteExit(int code) {
        if (exceeded != null) return;
        if (code == 128 + 24 && cgroups == null) exceeded = "CPU time limit " + spec.limits().cpuSeconds() + " s reached (SIGXCPU)";
        else if (code == 128 + 25 && spec.limits().diskBytes() > 0) exceeded = "file size limit " + Quantities.human(spec.limits().diskBytes()) + " reached (SIGXFSZ)";
    }

    /** A note naming the rlimit the agent likely met, from its exit and its output's tail (see {@link BoxEnforcement#rlimitLikely}), or null. */
    public String rlimitLikely(int exitCode, String outputTail) {
        return BoxEnforcement.rlimitLikely(spec.limits(), cgroups != null, exitCode, outputTail);
    }

    /** No process in the box's cgroups (joined first thing by each launcher, never left from inside); false without cgroups. */
    public boolean emptied() { return cgroups != null && cgroups.members().isEmpty(); }

    /** The uid the box's root maps to outside. */
    public int uid() { return uid; }

    /** Hands {@code dir} (and all in it, links not followed) to the box's uid so it may write there; nothing unless root. */
    public void handOver(Path dir) throws IOException {
        if (!ROOT || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        // setup's dependency folders stay setup's: read-only in the box, and their change times are grading's proof
        // that nothing changed them (SetupDependencies)
        java.util.Set<Path> keep = new java.util.HashSet<>();
        for (String d : dev.crucible.verifier.pristine.SetupDependencies.find(dir, false)) keep.add(dir.resolve(d));
        HandOver.to(dir, uid, keep);
    }

    /**
     * Lets the box's uid search (not list) {@code dir} until {@link #close}: its group becomes the box's
     * gid with group search permission. Folders bound from inside it then need no staging mount (two
     * processes fewer per bind at launch). Only root does this, only for a folder that others cannot
     * search and no other box holds; elsewhere staging stays as it was. The group grant matters only to
     * the box's launcher on the host: inside the box, {@code dir} is a bare mount point on the box's /tmp.
     */
    public void letThrough(Path dir) throws IOException {
        if (!ROOT || traversal != null) return;
        Path d = dir.toAbsolutePath().normalize();
        synchronized (LET_THROUGH) {
            if (LET_THROUGH.contains(d) || !Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) return;
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.OTHERS_EXECUTE)) return;
            int gid = (Integer) Files.getAttribute(d, "unix:gid", LinkOption.NOFOLLOW_LINKS);
            LET_THROUGH.add(d);
            traversal = new Traversal(d, gid, perms);
            Set<PosixFilePermission> p = java.util.EnumSet.copyOf(perms);
            p.remove(PosixFilePermission.GROUP_READ);
            p.remove(PosixFilePermission.GROUP_WRITE);
            p.add(PosixFilePermission.GROUP_EXECUTE);
            Files.setAttribute(d, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setPosixFilePermissions(d, p);
        }
    }

    private void restoreTraversal() {
        Traversal t = traversal;
        if (t == null) return;
        traversal = null;
        synchronized (LET_THROUGH) {
            try {
                Files.setPosixFilePermissions(t.dir(), t.perms());
                Files.setAttribute(t.dir(), "unix:gid", t.gid(), LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                // the folder is gone (its episode ended): nothing to restore
            }
            LET_THROUGH.remove(t.dir());
        }
    }

    /** What this box enforces, and what it does not and why: one line for the terminal. */
    public String describe() { return BoxEnforcement.describe(spec, uid, cgroups, cgroupProblem); }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        watcher.interrupt();
        boolean emptied = false;
        if (cgroups != null) {
            cgroups.killAll();
            emptied = cgroups.members().isEmpty(); // the launcher joined them first thing: empty means all of it is dead
            cgroups.close();
        }
        if (!emptied && !attached.isEmpty()) ProcessTreeKiller.killStarted(Map.copyOf(attached));
        if (stage != null) {
            try (var entries = Files.list(stage)) {
                for (Path e : entries.toList()) Files.deleteIfExists(e);
                Files.deleteIfExists(stage);
            } catch (IOException e) {
                // a launcher still holds it mounted in its own namespace; it is empty on the host
            }
        }
        restoreTraversal();
        if (ROOT) BoxHost.releaseUid(uidGroup, uid);
    }

    private void watch() {
        int tick = 0;
        while (!closed) {
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
            if (exceeded == null) exceeded = BoxEnforcement.diskExceeded(spec, ++tick % 8 == 0);
            if (exceeded == null) check();
            if (exceeded != null) {
                end();
                return;
            }
        }
    }

    private synchronized void check() {
        if (exceeded == null && cgroups != null) cgroups.exceeded().ifPresent(r -> exceeded = r);
        if (exceeded == null) exceeded = BoxEnforcement.diskExceeded(spec, false);
    }

    private void end() {
        if (cgroups != null) cgroups.killAll();
        if (!attached.isEmpty()) ProcessTreeKiller.killStarted(Map.copyOf(attached));
    }

    private static String q(String s) { return "'" + s.replace("'", "'\\''") + "'"; }

    private record Bind(Path src, Path dest, boolean writable) {}

    /** A folder {@link #letThrough} changed, with the group and permissions to put back. */
    private record Traversal(Path dir, int gid, Set<PosixFilePermission> perms) {}
}
