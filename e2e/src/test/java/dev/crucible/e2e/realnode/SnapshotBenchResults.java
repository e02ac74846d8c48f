package dev.crucible.e2e.realnode;

import static dev.crucible.e2e.realnode.SnapshotBench.MEMBERS;

import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** What the bench measures per size: each member's snapshot, each restored branch, and the line it prints for them. */
final class SnapshotBenchResults {
    private SnapshotBenchResults() {}

    /** One member's snapshot: its request, the count it held while frozen, its phase times. */
    static final class Member {
        final int index;
        final String pod;
        final SnapshotRequest request;
        /** Read while frozen by prepare, before the runtime's checkpoint lifts the freeze. */
        long countAtFreeze;
        /** Read while frozen again after the dump: what ContainerCheckpointTest calls the count at snapshot. */
        long countAtSnapshot;
        long prepareMs;
        long dumpMs;
        long commitMs;
        Manifest manifest;

        Member(int index, String pod, SnapshotRequest request) {
            this.index = index;
            this.pod = pod;
            this.request = request;
        }

        long ownMs() {
            return prepareMs + dumpMs + commitMs;
        }

        double checkpointMibS() {
            return manifest.checkpointBytes / 1048576.0 / (Math.max(1, manifest.checkpointMs) / 1000.0);
        }
    }

    /**
     * One restored branch: how long from the import to its first count; whether that count continues
     * the count at snapshot (within {@link SnapshotBench#COUNT_SLACK}) or at least the count at the freeze (the
     * checkpoint lies between the two), and whether it counts on.
     */
    record Branch(String pod, long importMs, long toRunningMs, long firstCount, boolean fromSnapshot, boolean fromFreeze,
                  boolean countsOn) {
        boolean continued() {
            return fromSnapshot && countsOn;
        }

        boolean continuedFromFreeze() {
            return fromFreeze && countsOn;
        }
    }

    static String line(long sizeMiB, List<Member> members, long wallMs, List<Branch> branches) {
        long freeze = members.stream().mapToLong(m -> m.manifest.freezeWindowMs).max().orElseThrow();
        long slowest = members.stream().mapToLong(Member::ownMs).max().orElseThrow();
        double minMibS = members.stream().mapToDouble(Member::checkpointMibS).min().orElseThrow();
        double aggregateMibS = members.stream().mapToLong(m -> m.manifest.checkpointBytes).sum() / 1048576.0
                / (members.stream().mapToLong(m -> Math.max(1, m.manifest.checkpointMs)).max().orElseThrow() / 1000.0);
        double reward = branches.stream().filter(Branch::continued).count() / (double) branches.size();
        double rewardFromFreeze = branches.stream().filter(Branch::continuedFromFreeze).count() / (double) branches.size();
        return String.format(Locale.ROOT,
                "members=%d size_mib=%d freeze_window_ms=%d coordination_ms=%d checkpoint_mib_s=%.0f restore_to_running_ms=%d branch_reward=%.1f"
                        + " branch_reward_from_freeze=%.1f freeze_window_ms_each=%s checkpoint_mib_s_each=%s checkpoint_mib_s_aggregate=%.0f"
                        + " checkpoint_mib_each=%s checkpoint_ms_each=%s runtime_gap_ms_each=%s"
                        + " workspace_ms_each=%s member_ms_each=%s snapshot_wall_ms=%d import_ms_each=%s restore_to_running_ms_each=%s"
                        + " count_at_freeze=%d count_at_snapshot=%d first_count_each=%s",
                MEMBERS, sizeMiB, freeze, Math.max(0, wallMs - slowest), minMibS, branches.get(0).toRunningMs(), reward, rewardFromFreeze,
                each(members, m -> m.manifest.freezeWindowMs), joined(members.stream().map(m -> String.format(Locale.ROOT, "%.0f", m.checkpointMibS()))),
                aggregateMibS,
                joined(members.stream().map(m -> String.format(Locale.ROOT, "%.0f", m.manifest.checkpointBytes / 1048576.0))),
                each(members, m -> m.manifest.checkpointMs), each(members, m -> m.manifest.runtimeGapMs),
                each(members, m -> m.manifest.workspaceMs), each(members, Member::ownMs), wallMs,
                joined(branches.stream().map(b -> Long.toString(b.importMs()))), joined(branches.stream().map(b -> Long.toString(b.toRunningMs()))),
                members.get(0).countAtFreeze, members.get(0).countAtSnapshot, joined(branches.stream().map(b -> Long.toString(b.firstCount()))));
    }

    private static String each(List<Member> members, java.util.function.Function<Member, Long> f) {
        return joined(members.stream().map(f).map(String::valueOf));
    }

    private static String joined(java.util.stream.Stream<String> s) {
        return s.collect(Collectors.joining(","));
    }
}
