package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ResolvedTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Freezes a resolved target with the best mechanism available and thaws it again.
 * Order of preference: the target's own cgroup (a container) → a cgroup created for a local
 * tree under the delegated parent → SIGSTOP of the tree. The handle says which was used.
 */
public final class Freezer {

    private static final Logger LOG = LoggerFactory.getLogger(Freezer.class);

    private final TreeCgroups treeCgroups;

    /** @param treeCgroups where local trees get their cgroup; null to always use SIGSTOP for them */
    public Freezer(TreeCgroups treeCgroups) {
        this.treeCgroups = treeCgroups;
    }

    /** Chooses the cgroup to freeze for this target (creating one for a local tree), or null for SIGSTOP. */
    public Path cgroupFor(ResolvedTarget target) {
        if (target.cgroup() != null) {
            return target.cgroup();
        }
        if (treeCgroups == null) {
            return null;
        }
        try {
            return treeCgroups.adopt(target.root());
        } catch (Exception e) {
            LOG.warn("cannot give pid " + target.root().pid() + " a cgroup under "
                    + treeCgroups.parent() + " (" + e.getMessage() + "); falling back to SIGSTOP");
            return null;
        }
    }

    /** True when {@code cgroup} was created for a local tree (and must be released when the freeze ends). */
    public boolean adopted(ResolvedTarget target, Path cgroup) {
        return cgroup != null && treeCgroups != null && !cgroup.equals(target.cgroup());
    }

    /** Moves an adopted tree back where it came from and removes its cgroup. */
    public void releaseAdopted(Path cgroup) {
        if (treeCgroups != null) {
            treeCgroups.release(cgroup);
        }
    }

    /** Start-up: thaws and removes tree cgroups left by an agent that is gone. */
    public List<String> removeStaleTreeCgroups() {
        return treeCgroups == null ? List.of() : treeCgroups.removeStale();
    }

    /** Drops per-tree cgroups whose processes have all exited. */
    public int removeEmptyTreeCgroups() {
        return treeCgroups == null ? 0 : treeCgroups.removeEmpty();
    }

    public FreezeHandle freeze(ResolvedTarget target, Path cgroup, Duration timeout) {
        if (cgroup != null) {
            CgroupV2Freezer.freeze(cgroup, timeout);
            return new FreezeHandle(FreezeHandle.CGROUP_V2, cgroup.toString(), target.processes());
        }
        SigstopFreezer.freeze(target.processes(), timeout);
        return new FreezeHandle(FreezeHandle.SIGSTOP, null, target.processes());
    }

    /** Idempotent; safe to call from the watchdog, the request thread and recovery alike. */
    public static void thaw(FreezeHandle handle) {
        if (handle.cgroup()) {
            Path cg = Path.of(handle.cgroupPath());
            if (Files.exists(cg)) {
                CgroupV2Freezer.thaw(cg);
            }
        } else {
            SigstopFreezer.thaw(handle.processes());
        }
    }

    public static boolean isFrozen(FreezeHandle handle) {
        if (handle.cgroup()) {
            return CgroupV2Freezer.isFrozen(Path.of(handle.cgroupPath()));
        }
        return handle.processes().stream().anyMatch(p -> {
            try {
                return p.alive() && dev.crucible.snapshot.target.ProcFs.state(p.pid()) == 'T';
            } catch (RuntimeException e) {
                return false;
            }
        });
    }
}
