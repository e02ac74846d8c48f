package dev.crucible.cli.snapshot;

import dev.crucible.cli.run.AttemptDir;
import dev.crucible.cli.run.HumanSummary;
import dev.crucible.cli.run.AttemptOptions;
import dev.crucible.cli.run.LocalRollout;
import dev.crucible.cli.run.Progress;
import dev.crucible.cli.run.RolloutResult;
import dev.crucible.cli.run.RolloutRunner;
import dev.crucible.cli.run.RolloutSnapshotter;
import dev.crucible.cli.run.RunInputs;
import dev.crucible.cli.run.RunningRollout;
import dev.crucible.cli.run.SnapshotPolicy;
import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.local.BranchRestorer;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code crucible restore SNAPSHOT --out DIR}: continues a local rollout from a snapshot as a new
 * branch in DIR. The attempt folder is extracted into DIR, the agent's process tree is restored
 * (CRIU, detached) where it sees DIR at its original path, and the rollout goes on exactly as
 * under {@code crucible run}: live monitor, remaining deadline, then grading into DIR/result.json.
 * The same snapshot restored into two folders gives two independent branches. Exit codes as
 * {@code crucible run}: 0 when the branch reached a terminal phase, 2 on bad input, 1 when the
 * restore or the local runtime failed.
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
        description = {"Continue a local rollout from a snapshot in DIR (a branch): restores the agent's processes and files, "
                + "then watches and grades it like crucible run, writing DIR/result.json.",
                "Run it again with another --out for another branch of the same snapshot."})
public final class RestoreCommand implements Callable<Integer> {
    static final int EXIT_INVALID = 2;

    @Parameters(index = "0", paramLabel = "SNAPSHOT", description = "Snapshot id (crucible snapshot list shows them).")
    String id;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "New or empty folder for the branch.")
    Path out;

    @Option(names = "--store", paramLabel = "DIR",
            description = "Image store. Default: $CRUCIBLE_SNAPSHOTS or ~/.cache/crucible/snapshots.")
    Path store;

    @Option(names = "--snapshot-every", paramLabel = "DURATION", description = "Keep snapshotting the branch every DURATION.")
    String snapshotEvery;

    @Option(names = "--snapshot-keep", defaultValue = "3", paramLabel = "N", description = "Snapshots kept for the branch. Default: ${DEFAULT-VALUE}.")
    int snapshotKeep;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        RolloutRunner.quietLogging();
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path storeDir = (store != null ? store : SnapshotPolicy.defaultStore()).toAbsolutePath().normalize();
        Path dir = out.toAbsolutePath().normalize();
        try {
            SnapshotId.of(id);
        } catch (IllegalArgumentException e) {
            return invalid(err, "SNAPSHOT: " + e.getMessage());
        }
        // Issue 34 point 4: as crucible run --snapshot-every is, since a restored agent is outside any box (see refusal)
        if (RESTORE_REFUSED) return invalid(err, refusal());
        Optional<Manifest> found = Files.isDirectory(storeDir.resolve("snapshots")) ? new ImageStore(storeDir).find(SnapshotId.of(id)) : Optional.empty();
        if (found.isEmpty()) return invalid(err, "SNAPSHOT: no snapshot '" + id + "' in " + storeDir + " (crucible snapshot list --store DIR shows them)");
        if (found.get().state != SnapshotState.COMPLETE) {
            return invalid(err, "SNAPSHOT: '" + id + "' is " + found.get().state + (found.get().reason == null ? "" : " (" + found.get().reason + ")")
                    + "; only COMPLETE snapshots are restored");
        }
        if (Files.exists(dir) && !isEmptyDir(dir)) return invalid(err, "--out: " + dir + " exists and is not an empty folder; nothing was restored");
        SnapshotPolicy policy;
        try {
            // without --snapshot-every the branch stays snapshot-able on demand, into the store it came from
            policy = snapshotEvery == null ? new SnapshotPolicy(null, snapshotKeep, storeDir) : new SnapshotPolicy(SnapshotPolicy.parseDuration("--snapshot-every", snapshotEvery), snapshotKeep, storeDir);
        } catch (IllegalArgumentException e) {
            return invalid(err, e.getMessage());
        }
        if (snapshotKeep < 1) return invalid(err, "--snapshot-keep: must be at least 1, got " + snapshotKeep);
        RunningRollout meta;
        try {
            meta = RolloutSnapshotter.metadata(storeDir, id);
        } catch (RunningRollout.NotRunning e) {
            return invalid(err, "SNAPSHOT: " + e.getMessage());
        }
        if (meta == null) {
            return invalid(err, "SNAPSHOT: '" + id + "' is a process snapshot, not a rollout's (no rollout.json); restore it with crucible snapshot restore");
        }
        RunInputs.RolloutDoc doc;
        try {
            doc = rollout(meta);
        } catch (RunInputs.InvalidInput e) {
            e.lines().forEach(err::println);
            return invalid(err, "SNAPSHOT: the manifests of '" + id + "' (" + String.join(", ", meta.manifests()) + ") no longer load; nothing was restored");
        }
        if (CriuBinary.find().isEmpty()) return invalid(err, CriuBinary.MISSING);

        o.println("crucible restore: " + id + " (rollout " + meta.rollout() + ", " + meta.elapsedMs() / 1000.0 + " s into it) → " + dir);
        o.flush();
        BranchRestorer.Branch b;
        try {
            b = new BranchRestorer(storeDir).restore(id, dir, Path.of(meta.attemptRoot()), true);
        } catch (RuntimeException e) {
            err.println("crucible restore: " + e.getMessage() + " (" + dir + " was left as it was)");
            err.flush();
            return 1;
        }
        if (b.createdMountPoint()) o.println("note: " + meta.attemptRoot() + " no longer existed; an empty folder was made there to mount the branch on");
        o.println("restored pid " + b.pid() + " in " + b.restoreMs() + " ms");
        o.flush();
        AttemptOptions options = new AttemptOptions(true, 0, Duration.ofSeconds(5), policy);
        RolloutResult r = new LocalRollout(doc, meta.attempt(), new AttemptDir(dir), options, new Progress(o, meta.rollout() + "@branch"))
                .resume(meta, id, b.pid());
        synchronized (o) {
            o.println();
            HumanSummary.block(r, false).forEach(o::println);
            o.println("result: " + dir.resolve("result.json"));
            o.flush();
        }
        return "LocalRunError".equals(r.reason()) ? 1 : 0;
    }

    /** The rollout as it was run: same manifests, same name, the agent command the run used (which --agent-cmd may have set). */
    private static RunInputs.RolloutDoc rollout(RunningRollout meta) throws RunInputs.InvalidInput {
        RunInputs in = RunInputs.load(meta.manifests().stream().map(Path::of).toList(), null);
        RunInputs.RolloutDoc doc = in.rollouts().stream().filter(r -> r.name().equals(meta.rollout())).findFirst()
                .orElseThrow(() -> new RunInputs.InvalidInput(List.of(meta.manifests() + ": Rollout/" + meta.rollout() + ": not found any more")));
        doc.spec().mode = dev.crucible.api.v1alpha1.rollout.RolloutMode.EMBEDDED;
        if (doc.spec().agent == null) doc.spec().agent = new dev.crucible.api.v1alpha1.rollout.AgentSpec();
        doc.spec().agent.command = meta.agentCommand();
        return doc;
    }

    private static boolean isEmptyDir(Path p) {
        if (!Files.isDirectory(p)) return false;
        try (var s = Files.list(p)) {
            return s.findAny().isEmpty();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Branches are not restored until a snapshot-able box exists (the one check that keeps the code below unreachable). */
    static final boolean RESTORE_REFUSED = true;

    /**
     * A rollout snapshot's agent comes back as CRIU dumped it, in the snapshot-able sandbox: no user namespace, the
     * CLI user's rights (as root, every capability), the host's files and the sealing key, with which it could forge
     * sealed snapshots. No snapshot-able box exists yet (SnapshotPolicy#refusal), so restoring one is refused too.
     */
    static String refusal() {
        String user = System.getProperty("user.name");
        return "refused before anything was restored: a rollout snapshot's agent would come back outside its box, as " + user
                + " with no user namespace" + ("root".equals(user) ? " and every capability (host root)" : " and all of " + user + "'s rights")
                + ", able to read the snapshot sealing key " + dev.crucible.snapshot.store.ManifestKey.defaultLocalFile()
                + " and forge sealed snapshots. Use workspace-only snapshots instead: start a new environment from a run's"
                + " OUT/sandbox/workspace (crucible run without --snapshot-every keeps it), or in a cluster a RolloutSnapshot with include: {memory: false}";
    }

    private static int invalid(PrintWriter err, String message) {
        err.println("crucible restore: " + message);
        err.flush();
        return EXIT_INVALID;
    }
}
