package dev.crucible.snapshot.client.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a snapshot directory holds and how it came to be: state, target, timings, sizes and a
 * sha256 per file. Written atomically (the agent's {@code ManifestFiles}); a snapshot whose manifest is not
 * COMPLETE is never restored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class Manifest {
    public String id;
    public SnapshotState state;
    /** Why the snapshot FAILED (or a note on a COMPLETE one). */
    public String reason;
    /** Retention key (for example the rollout); keep-N applies per group. */
    public String group;
    public Instant createdAt;
    public Instant completedAt;

    /** Human-readable target: "pid 123" or "cgroup /sys/fs/cgroup/…". */
    public String target;
    public Long rootPid;
    /** True when the root was PID 1 of its own PID namespace, so restores get a fresh one. */
    public Boolean pidNamespaceRoot;
    /** How the tree was frozen: "cgroup-v2" or "sigstop". */
    public String freezer;
    public String cgroupPath;
    /** Namespace-local pids of tasks whose CUDA state was checkpointed. */
    public List<Long> gpuNamespacePids = new ArrayList<>();
    public boolean memoryTracking;
    public boolean tcpEstablished;
    public int preDumps;

    public List<Long> preDumpMs = new ArrayList<>();
    public Long freezeWindowMs;
    public Long dumpMs;
    public Long workspaceMs;
    public Long imageBytes;
    public Long workspaceBytes;
    public String workspaceSha256;
    /** Images directory that restore uses, relative to the snapshot directory. */
    public String imagesDir;
    /** Only the workspace was captured (no process images); a restore gives the workspace back. */
    public Boolean diskOnly;
    /**
     * Memory checkpointed by the container runtime (the kubelet's checkpoint API): the reference a
     * restore imports its checkpoint image under, the image index's digest, the archive's size, how long
     * the runtime took, and how long the container ran unfrozen around it (the runtime refuses a frozen
     * container, so the agent thaws it for the call). The image is the OCI layout under {@code checkpoint/}.
     */
    public String checkpointImage;
    public String checkpointDigest;
    public Long checkpointBytes;
    public Long checkpointMs;
    public Long runtimeGapMs;

    public Map<String, FileDigest> files = new TreeMap<>();
    /** HMAC-SHA256 of the restore-relevant fields and every file digest (the agent's {@code ManifestSeal}), hex. */
    public String hmac;

    /** What a restore brings back: "memory" (processes and workspace) or "disk" (the workspace only). */
    public String mode() {
        return Boolean.TRUE.equals(diskOnly) ? "disk" : "memory";
    }

    public static Manifest preparing(SnapshotId id, String group, String target) {
        Manifest m = new Manifest();
        m.id = id.value();
        m.group = group;
        m.target = target;
        m.state = SnapshotState.PREPARING;
        m.createdAt = Instant.now();
        return m;
    }
}
