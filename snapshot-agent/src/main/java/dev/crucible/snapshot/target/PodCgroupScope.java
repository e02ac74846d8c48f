package dev.crucible.snapshot.target;

/**
 * Cluster scope: every process of the tree must sit in one pod's cgroup under kubepods (so the
 * host, kubelet, the runtime and system daemons are out of reach), and not in the agent's own pod.
 * Which pods are rollouts is decided by the operator, the only authenticated caller, which names
 * targets by pod UID and container id of a Rollout's pod.
 */
final class PodCgroupScope implements TargetScope {

    private final String ownPodUid;

    PodCgroupScope(ProcCgroups self) {
        this.ownPodUid = self.podUid();
    }

    @Override
    public void check(ResolvedTarget t) {
        BasicRefusals.check(t);
        String uid = null;
        for (ProcessRef p : t.processes()) {
            String u;
            try {
                u = ProcCgroups.of(p.pid()).podUid();
            } catch (NoSuchProcessException exited) {
                continue; // a short-lived child (a shell's sleep) gone since the tree was read: nothing to act on
            }
            if (u == null) {
                throw new TargetOutOfScopeException("target " + t.description() + ": pid " + p.pid()
                        + " is not in a pod's cgroup (kubepods); the agent only acts on rollout pods; refused");
            }
            if (u.equals(ownPodUid)) {
                throw new TargetOutOfScopeException("target " + t.description() + ": pid " + p.pid()
                        + " belongs to the snapshot agent's own pod; refused");
            }
            if (uid != null && !uid.equals(u)) {
                throw new TargetOutOfScopeException("target " + t.description() + " spans pods " + uid + " and " + u + "; refused");
            }
            uid = u;
        }
    }
}
