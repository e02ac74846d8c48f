package dev.crucible.cli.attacks;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.cli.run.AttemptDir;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.snapshot.disk.WorkspaceArchive;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.monitor.HackMonitor;
import dev.crucible.verifier.monitor.MonitorConfig;
import dev.crucible.verifier.pristine.GradingTree;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.sandbox.DiskVolume;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import dev.crucible.verifier.trace.RolloutTrace;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The host-side components that read or copy what an agent left (or what a derived repo holds), each as one
 * row: how to run it over a {@link HostileCase} (planting the kind where it would meet it: after the monitor's
 * baseline, before a copy) and return what it said. Package-private CLI classes are reached by reflection, as
 * they are what {@code crucible run} and {@code crucible derive} call. A new reader is one more row.
 */
final class HostileReaders {
    /**
     * One reader: its name, the kinds it refuses and must name (in a finding, a dropped path, a warning; a copy that keeps
     * links as links, for the box to resolve in its own view, refuses none of them), and how to run it.
     */
    record Reader(String name, Set<HostileKinds> names, Body body) {}

    @FunctionalInterface
    interface Body {
        /** Runs the reader over {@code c} (calling {@code plant} at the moment the agent would have acted); returns what it said. */
        String run(HostileCase c, HostileKinds kind) throws Exception;
    }

    static final VerifierSpec PYTEST = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    private static final Set<HostileKinds> SPECIAL = EnumSet.of(HostileKinds.FIFO, HostileKinds.LINK_SECRET, HostileKinds.LINK_DEV_ZERO,
            HostileKinds.DEVICE);
    /** What a copier must name: the special kinds, and a tree past PATH_MAX it skipped (a copy of it could not be named). */
    private static final Set<HostileKinds> COPIED_SPECIAL = EnumSet.of(HostileKinds.FIFO, HostileKinds.LINK_SECRET, HostileKinds.LINK_DEV_ZERO,
            HostileKinds.DEVICE, HostileKinds.DEEP_DIR);

    static final List<Reader> ALL = List.of(
            new Reader("monitor (scan, git watch, protected-file diff)", SPECIAL, HostileReaders::monitor),
            new Reader("trajectory recorder (file events, contents, diffs)", SPECIAL, HostileReaders::trajectory),
            new Reader("grading-tree copier (GradingTree.build)", COPIED_SPECIAL, HostileReaders::gradingTree),
            new Reader("attempt workspace copy (WorkspaceCopy: run, derive)",
                    EnumSet.of(HostileKinds.FIFO, HostileKinds.DEVICE, HostileKinds.DEEP_DIR),
                    HostileReaders::workspaceCopy),
            // tar keeps every kind as an entry (links as links, FIFOs and devices as headers, holes as holes): nothing refused
            // but a tree past PATH_MAX, which no restore could name
            new Reader("snapshotter workspace archive (capture + restore)", EnumSet.of(HostileKinds.DEEP_DIR), HostileReaders::snapshotArchive),
            new Reader("execution planner (dependency files: run, derive)", SPECIAL, HostileReaders::planner),
            new Reader("derive source checkout + planner (a hostile repo)", EnumSet.of(HostileKinds.LINK_SECRET, HostileKinds.LINK_DEV_ZERO),
                    HostileReaders::deriveCheckout),
            // links are kept as links, FIFOs and devices listed in not-kept.txt
            new Reader("volume keeper (VolumeKeeper.keep: the workspace moved off its volume after a run)",
                    EnumSet.of(HostileKinds.FIFO, HostileKinds.DEVICE, HostileKinds.DEEP_DIR), HostileReaders::volumeKeeper));

    private static PristineSnapshot pristine(HostileCase c) {
        return PristineSnapshot.take(c.ws, ProtectedPaths.of(PYTEST, true), c.base.resolve("pristine"));
    }

    private static MonitorConfig config(HostileCase c, PristineSnapshot p) {
        return new MonitorConfig(c.ws, null, p, HackPolicy.DEFAULT, List.of(), List.of(), List.of(), List.of(), Set.of("json"),
                Duration.ofHours(1), Duration.ofHours(1), "python3");
    }

    /** The live monitor: baseline, the agent's act, a scan, the last scan before grading and the protected-file diff. */
    static String monitor(HostileCase c, HostileKinds kind) throws Exception {
        PristineSnapshot p = pristine(c);
        List<Finding> got = new CopyOnWriteArrayList<>();
        List<PristineSnapshot.Change> changes;
        try (HackMonitor m = new HackMonitor(config(c, p), got::add)) {
            m.start();
            kind.plantAll(c);
            m.scanNow();
            m.finishProcesses();
            m.finishFiles();
            changes = p.changes(c.ws);
        }
        return "findings " + got + "\nchanges " + changes;
    }

    /** The trajectory: the monitor's file events recorded with contents and diffs, in OUT/trajectory. */
    static String trajectory(HostileCase c, HostileKinds kind) throws Exception {
        PristineSnapshot p = pristine(c);
        TrajectoryRecorder rec = TrajectoryRecorder.open(c.out.resolve("trajectory"), RecorderLimits.defaults());
        RolloutTrace trace = new RolloutTrace(rec, true);
        try (HackMonitor m = new HackMonitor(config(c, p), f -> { })) {
            m.start();
            m.observe(trace);
            kind.plantAll(c);
            m.scanNow();
            m.finishProcesses();
            m.finishFiles();
        } finally {
            rec.close();
        }
        return "trajectory in OUT/trajectory";
    }

    /** The tree grading runs in, built from the workspace the agent left, in OUT/grade. */
    static String gradingTree(HostileCase c, HostileKinds kind) throws Exception {
        PristineSnapshot p = pristine(c);
        kind.plantAll(c);
        GradingTree.Built b = GradingTree.build(c.ws, p, c.out.resolve("grade"), null, null);
        return "dropped " + b.dropped() + "\ncopied " + b.copied();
    }

    /** The attempt's copy of an environment's workspace (a derived repo's files, or a branch's), in OUT/copy. */
    static String workspaceCopy(HostileCase c, HostileKinds kind) throws Exception {
        kind.plantAll(c);
        Object stats = call("dev.crucible.cli.run.WorkspaceCopy", "copy", new Class<?>[] {Path.class, Path.class, List.class},
                c.ws, c.out.resolve("copy"), List.of());
        return "copied " + stats;
    }

    /** A local snapshot's workspace half: the archive of the workspace, and its restore into a fresh folder (in OUT). */
    static String snapshotArchive(HostileCase c, HostileKinds kind) throws Exception {
        kind.plantAll(c);
        WorkspaceArchive.Archive a = WorkspaceArchive.capture(c.ws, c.out.resolve("ws.tar"));
        WorkspaceArchive.restore(a.file(), a.sha256(), c.out.resolve("restored"));
        return "archive " + a.bytes() + " bytes, left out " + a.leftOut();
    }

    /**
     * After a run the attempt's volume is emptied into {@code OUT/.sandbox-kept} file by file (holes kept, each piece punched
     * out of the volume as it is copied). The volume here is the case's workspace folder itself, named as a mount that needs
     * no unmount ({@link DiskVolume#mounted}): keep's own walk and moves are what meet the kinds; a trim of it does nothing.
     */
    static String volumeKeeper(HostileCase c, HostileKinds kind) throws Exception {
        kind.plantAll(c);
        DiskVolume v = DiskVolume.mounted(c.ws, 1L << 30, "the case's workspace folder", () -> { });
        Path attempt = Files.createDirectories(c.out.resolve("attempt"));
        Object trims = call("dev.crucible.cli.run.VolumeKeeper", "keep", new Class<?>[] {DiskVolume.class, AttemptDir.class, String.class},
                v, new AttemptDir(attempt), "state");
        Path notKept = attempt.resolve("not-kept.txt");
        return "trims " + trims + "\nnot kept " + (Files.exists(notKept) ? Files.readAllLines(notKept) : List.of());
    }

    /**
     * What setup installs is keyed by the dependency files' contents. The key must not depend on a host file a link
     * points to (it would be read: a FIFO or a huge file there hangs or exhausts the CLI): planned twice, with the
     * host file rewritten in between, a key that changed is reported as a leak (the marker is put in the output).
     */
    static String planner(HostileCase c, HostileKinds kind) throws Exception {
        kind.plantAll(c);
        return plannedTwice(c, c.ws);
    }

    /** Derive hands a repo's commit to {@code crucible run}: extracted by git archive, then planned; only what git can hold. */
    static String deriveCheckout(HostileCase c, HostileKinds kind) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(kind == HostileKinds.LINK_SECRET || kind == HostileKinds.LINK_DEV_ZERO
                || kind == HostileKinds.DEEP_DIR || kind == HostileKinds.BAD_NAMES, "git cannot hold a " + kind.label);
        kind.plantAll(c, HostileKinds.TARGETS.stream().filter(t -> !t.startsWith(".git/")).toList()); // the repo must stay one
        c.git("add", "-A");
        c.git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "hostile");
        Path into = c.out.resolve("checkout");
        try {
            call("dev.crucible.cli.run.SourceCheckout", "extract", new Class<?>[] {Path.class, String.class, Path.class}, c.ws, "HEAD", into);
        } catch (java.io.IOException e) {
            // a repository another user owns (the agent's uid) is refused by git before anything in it is read or run (its
            // config could name commands): that refusal, naming the repository, is the host's answer to it
            if (c.uid == null || !String.valueOf(e.getMessage()).contains("dubious ownership")) throw e;
            try (var left = Files.list(into)) {
                org.assertj.core.api.Assertions.assertThat(left.toList()).as("nothing extracted from the refused repository").isEmpty();
            }
            return "refused the repository of uid " + c.uid + ": " + e.getMessage();
        }
        return plannedTwice(c, into);
    }

    private static String plannedTwice(HostileCase c, Path ws) throws Exception {
        EnvironmentDoc doc = new EnvironmentDoc("hostile", c.base.resolve("environment.yaml"), new RLEnvironmentSpec(), null);
        Class<?>[] sig = {EnvironmentDoc.class, Path.class};
        Object first = call("dev.crucible.cli.run.ExecutionPlanner", "plan", sig, doc, ws);
        c.rotateSecret();
        Object second = call("dev.crucible.cli.run.ExecutionPlanner", "plan", sig, doc, ws);
        String k1 = ((ExecEnvironment) first).key();
        String k2 = ((ExecEnvironment) second).key();
        return "key " + k1 + " warnings " + ((ExecEnvironment) first).warnings()
                + (k1.equals(k2) ? "" : "\nTHE KEY CHANGED WITH THE HOST FILE (" + c.marker + "): it was read");
    }

    /** Calls a static method of a package-private CLI class; what it threw is thrown here. */
    static Object call(String cls, String name, Class<?>[] sig, Object... args) throws Exception {
        Method m = Class.forName(cls).getDeclaredMethod(name, sig);
        m.setAccessible(true);
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            if (e.getCause() instanceof Error err) throw err;
            throw e;
        }
    }

    private HostileReaders() {}
}
