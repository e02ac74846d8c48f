package dev.crucible.cli.run;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.verifier.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * What a snapshot-able local rollout publishes while its agent runs, in ATTEMPT/{@value #FILE}:
 * the agent's tree root (pid and kernel start time, so a stale file never names a recycled pid),
 * and everything needed to continue the rollout from a snapshot (manifests, rollout, attempt,
 * agent command, the attempt folder, the rollout clock). The same document, with
 * {@code elapsedMs} and {@code trigger} filled in, is stored in each snapshot as its metadata.
 *
 * @param attemptRoot the attempt folder as the agent sees it: where it was first run (a restored branch
 *                    sees its own folder mounted there)
 * @param folder     where the attempt folder is on this machine now (the branch's --out after a restore)
 * @param workspace  the workspace relative to {@code attemptRoot}
 * @param exitFile   where the agent's PID 1 writes its exit status, relative to {@code attemptRoot}
 * @param clockStartEpochMs the rollout's clock start (its deadline counts from here)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RunningRollout(long agentPid, long agentStartTicks, long cruciblePid, String group, List<String> manifests,
                             String rollout, int attempt, List<String> agentCommand, String attemptRoot, String folder, String workspace,
                             String exitFile, String store, String sandbox, long deadlineSeconds, String startedAt,
                             long clockStartEpochMs, String restoredFrom, Long elapsedMs, String trigger) {
    public static final String FILE = "running.json";

    /** The state file of a rollout that is not running (any more), or names a process that is not its agent. */
    public static final class NotRunning extends Exception {
        public NotRunning(String message) { super(message); }
    }

    public RunningRollout withSnapshot(long elapsed, String why) {
        return new RunningRollout(agentPid, agentStartTicks, cruciblePid, group, manifests, rollout, attempt, agentCommand, attemptRoot,
                folder, workspace, exitFile, store, sandbox, deadlineSeconds, startedAt, clockStartEpochMs, restoredFrom, elapsed, why);
    }

    /** Where the attempt's files are now (what a snapshot archives); the agent itself sees them at {@code attemptRoot}. */
    public Path root() { return Path.of(folder); }

    /** Written to a temporary file and renamed, so a reader never sees half a document. */
    public void write(Path dir) throws IOException {
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.writeString(tmp, Json.write(this, true) + "\n");
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public byte[] toJson() { return (Json.write(this, true) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8); }

    public static RunningRollout parse(byte[] json, String where) throws NotRunning {
        try {
            RunningRollout r = new ObjectMapper().readValue(json, RunningRollout.class);
            if (r.agentPid <= 0 || r.attemptRoot == null || r.folder == null || r.group == null || r.manifests == null || r.rollout == null) {
                throw new NotRunning(where + ": not a crucible rollout state (agentPid, attemptRoot, group, manifests and rollout are required)");
            }
            return r;
        } catch (IOException e) {
            throw new NotRunning(where + ": unreadable: " + e.getMessage());
        }
    }

    /**
     * The state of the rollout in {@code dir}, checked to be live: its agent pid must exist with the
     * kernel start time recorded when the agent started. A leftover file from a finished (or killed)
     * run is refused, so a recycled pid is never snapshotted.
     */
    public static RunningRollout readLive(Path dir) throws NotRunning {
        Path f = dir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            throw new NotRunning(dir + ": no " + FILE + " here: not the folder of a running snapshot-able rollout"
                    + " (start it with crucible run --snapshot-every DURATION, or restore a snapshot)");
        }
        RunningRollout r;
        try {
            r = parse(Files.readAllBytes(f), f.toString());
        } catch (IOException e) {
            throw new NotRunning(f + ": unreadable: " + e.getMessage());
        }
        long ticks;
        try {
            ticks = ProcFs.exists(r.agentPid) ? ProcFs.startTime(r.agentPid) : -1;
        } catch (RuntimeException e) {
            ticks = -1; // it ended between the two reads
        }
        if (ticks != r.agentStartTicks) {
            throw new NotRunning(f + ": stale: the agent (pid " + r.agentPid + ", start time " + r.agentStartTicks + ") is not running"
                    + (ticks < 0 ? "" : "; pid " + r.agentPid + " now belongs to another process (start time " + ticks + ")")
                    + "; nothing was snapshotted");
        }
        return r;
    }
}
