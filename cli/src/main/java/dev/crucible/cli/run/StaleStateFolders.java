package dev.crucible.cli.run;

import dev.crucible.verifier.exec.ProcessTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * State folders (and result channels' FIFO folders) on the host's disk (an attempt with no volume: no root and no mount namespace, or a snapshot-able run) hold
 * the pristine copy, hidden tests and grading copies, and a CLI killed with SIGKILL runs no hook to remove them. Their name
 * carries the CLI's pid and start time ({@code crucible-state-PID-START-...}), so the next run removes those whose CLI is
 * gone: no process has that pid, or the one that has it started at another time (the pid was reused). Folders of other
 * users are left, even by root; older names without an owner are never touched.
 */
final class StaleStateFolders {
    static final String PREFIX = "crucible-state-";
    /** The mount helper's folder of a run re-executed in a user and mount namespace (MountNamespace). */
    static final String MOUNTNS_PREFIX = "crucible-mountns-";
    /** These folders, the result channels' FIFO folder (ResultChannel) and a box's staging folder (Box), each named for the CLI that made it. */
    private static final Pattern NAME = Pattern.compile("(?:" + Pattern.quote(PREFIX) + "|" + Pattern.quote(MOUNTNS_PREFIX) + "|"
            + Pattern.quote(dev.crucible.verifier.grade.ResultChannel.CHANNELS_PREFIX) + "|" + Pattern.quote(dev.crucible.verifier.sandbox.Box.STAGE_PREFIX)
            + ")(\\d+)-(\\d+)-\\d+");

    private StaleStateFolders() {}

    /** The prefix of this CLI's state folders: its pid and start time. */
    static String prefix() {
        return PREFIX + ProcessTable.selfTag() + "-";
    }

    /** Removes the state folders under {@code tmp} whose CLI is gone, each within {@code bound}; returns those removed. */
    static List<Path> sweep(Path tmp, Duration bound) {
        return remove(tmp, bound, false);
    }

    /** Removes this CLI's own folders under {@code tmp} (a signal stops it: SignalCleanup), each within {@code bound}. */
    static List<Path> removeOwn(Path tmp, Duration bound) {
        return remove(tmp, bound, true);
    }

    /** The folders named for a CLI that is gone ({@code own}: for this one), of this user only, removed. */
    private static List<Path> remove(Path tmp, Duration bound, boolean own) {
        List<Path> removed = new ArrayList<>();
        try (Stream<Path> s = Files.list(tmp)) {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            String self = ProcessTable.selfTag();
            for (Path d : s.toList()) {
                Matcher m = NAME.matcher(d.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS) || !Files.isWritable(d)) continue;
                // only this user's: a root run removed another user's folders (or ones planted to look like them: host round 9, 10b)
                if (!uid.equals(Files.getAttribute(d, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS))) continue;
                long pid = Long.parseLong(m.group(1));
                long start = Long.parseLong(m.group(2));
                if (own != (pid + "-" + start).equals(self)) continue;
                if (!own && ProcessTable.stat(pid).map(st -> st.startTicks() == start).orElse(false)) continue; // its CLI still runs
                if (dev.crucible.verifier.pristine.TreeCopy.delete(d, bound) == null) removed.add(d);
            }
        } catch (IOException | RuntimeException unreadable) {
            // no temporary folder to sweep: nothing left by this user there
        }
        return removed;
    }
}
