package dev.crucible.snapshot.criu;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Command-line arguments for the CRIU actions the agent uses, built in one place. */
public final class CriuArgs {

    private CriuArgs() {
    }

    /** Options shared by pre-dump and dump. */
    public record DumpOptions(boolean trackMem, boolean tcpEstablished, boolean shellJob, boolean extUnixSockets,
                              boolean fileLocks) {
        public static DumpOptions defaults() {
            return new DumpOptions(false, false, false, false, false);
        }
    }

    /** criu pre-dump: copies memory while the tree keeps running (it is stopped only briefly). */
    public static List<String> preDump(long rootPid, Path imagesDir, String prevRelative, DumpOptions o) {
        List<String> a = common(rootPid, imagesDir, prevRelative, o);
        return a;
    }

    /**
     * criu dump. {@code freezeCgroup} is the cgroup we froze: CRIU then seizes the tasks through
     * the freezer instead of stopping them with ptrace, and leaves the cgroup frozen when done (it
     * restores the state it found), so the agent decides when to thaw.
     */
    public static List<String> dump(long rootPid, Path imagesDir, String prevRelative, DumpOptions o,
                                    Path freezeCgroup, boolean leaveRunning) {
        List<String> a = common(rootPid, imagesDir, prevRelative, o);
        if (freezeCgroup != null) {
            a.addAll(List.of("--freeze-cgroup", freezeCgroup.toString()));
        }
        if (leaveRunning) {
            a.add("--leave-running");
        }
        return a;
    }

    /**
     * criu restore, detached (-d): the restored root is re-parented away from CRIU. A tree dumped
     * as PID 1 of its PID namespace is restored into a fresh PID namespace, so the same images can
     * be restored many times side by side (branching). Cgroup membership is not restored
     * ("ignore"), so a branch never lands in the (maybe frozen) cgroup of its origin.
     */
    public static List<String> restore(Path imagesDir, Path pidFile, boolean tcpEstablished, boolean shellJob) {
        List<String> a = new ArrayList<>(List.of("--images-dir", imagesDir.toString(), "--restore-detached",
                "--pidfile", pidFile.toString(), "--manage-cgroups=ignore"));
        if (tcpEstablished) {
            a.add("--tcp-established");
        }
        if (shellJob) {
            a.add("--shell-job");
        }
        return a;
    }

    private static List<String> common(long rootPid, Path imagesDir, String prevRelative, DumpOptions o) {
        List<String> a = new ArrayList<>(List.of("--tree", Long.toString(rootPid), "--images-dir", imagesDir.toString()));
        if (prevRelative != null) {
            a.addAll(List.of("--prev-images-dir", prevRelative));
        }
        if (o.trackMem()) {
            a.add("--track-mem");
        }
        if (o.tcpEstablished()) {
            a.add("--tcp-established");
        }
        if (o.shellJob()) {
            a.add("--shell-job");
        }
        if (o.extUnixSockets()) {
            a.add("--ext-unix-sk");
        }
        if (o.fileLocks()) {
            a.add("--file-locks");
        }
        return a;
    }
}
