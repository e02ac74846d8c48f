package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.criu.CriuRunner;
import dev.crucible.snapshot.freeze.Freezer;
import dev.crucible.snapshot.freeze.TreeCgroups;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.store.ManifestSeal;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.target.CgroupMounts;
import dev.crucible.snapshot.target.TargetResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Wires an engine from what this host offers (CRIU, cgroup2, cuda-checkpoint); used by the agent, the CLI and tests. */
public final class EngineBuilder {

    private Path store;
    private final List<Path> workspaceRoots = new ArrayList<>();
    private Path cgroupParent;
    private boolean useCgroups = true;
    private EngineConfig config;
    private SnapshotMetrics metrics;
    private TargetScope scope;
    private final List<Path> rolloutRoots = new ArrayList<>();
    private ManifestKey manifestKey;
    private dev.crucible.snapshot.container.ContainerRuntime runtime;

    public EngineBuilder store(Path dir) {
        this.store = dir;
        return this;
    }

    public EngineBuilder workspaceRoot(Path dir) {
        this.workspaceRoots.add(dir);
        return this;
    }

    /** Parent cgroup for local trees (default CGROUP2_MOUNT/crucible). */
    public EngineBuilder cgroupParent(Path dir) {
        this.cgroupParent = dir;
        return this;
    }

    /** false: freeze local trees with SIGSTOP (tests of the fallback, hosts without cgroup2). */
    public EngineBuilder useCgroups(boolean use) {
        this.useCgroups = use;
        return this;
    }

    public EngineBuilder config(EngineConfig c) {
        this.config = c;
        return this;
    }

    public EngineBuilder metrics(SnapshotMetrics m) {
        this.metrics = m;
        return this;
    }

    /** Which processes may be frozen (default: local rollouts, see {@link TargetScope#localRollouts}). */
    public EngineBuilder scope(TargetScope s) {
        this.scope = s;
        return this;
    }

    /** A folder whose running.json (or its subfolders') names a local rollout's agent tree that may be snapshotted. */
    public EngineBuilder rolloutRoot(Path dir) {
        this.rolloutRoots.add(dir);
        return this;
    }

    /** The key that seals manifests (default: the local user's, {@link ManifestKey#localDefault()}). */
    public EngineBuilder manifestKey(ManifestKey key) {
        this.manifestKey = key;
        return this;
    }

    /** The node's container runtime, for memory snapshots of pod containers (none: such requests are refused). */
    public EngineBuilder containerRuntime(dev.crucible.snapshot.container.ContainerRuntime r) {
        this.runtime = r;
        return this;
    }

    public SnapshotEngine build() {
        if (store == null) {
            throw new IllegalArgumentException("store directory is required");
        }
        Optional<Path> cgroup2 = CgroupMounts.cgroup2();
        TreeCgroups trees = null;
        if (useCgroups) {
            Path parent = cgroupParent != null ? cgroupParent : cgroup2.map(p -> p.resolve("crucible")).orElse(null);
            if (parent != null && (Files.isDirectory(parent) || Files.isWritable(parent.getParent()))) {
                trees = new TreeCgroups(parent);
            }
        }
        CriuRunner criu = CriuBinary.find().map(CriuRunner::new).orElse(null);
        EngineConfig c = config != null ? config : EngineConfig.defaults(workspaceRoots);
        if (config != null && !workspaceRoots.isEmpty()) {
            c = new EngineConfig(c.defaultFreezeTimeout(), c.maxFreezeTimeout(), c.criuTimeout(), List.copyOf(workspaceRoots),
                    c.defaultPreDumps(), c.extraDumpArgs());
        }
        ManifestKey key = manifestKey != null ? manifestKey : ManifestKey.localDefault();
        key.requireOutside(store);
        TargetScope sc = scope != null ? scope : TargetScope.localRollouts(rolloutRoots);
        return new SnapshotEngine(c, new ImageStore(store), criu, CudaCheckpoint.find().orElse(null), new Freezer(trees),
                new TargetResolver(cgroup2.orElse(null), dev.crucible.snapshot.target.CgroupMounts.cgroupV1()), metrics != null ? metrics : new SnapshotMetrics(), sc, new ManifestSeal(key), runtime);
    }
}
