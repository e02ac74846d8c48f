package dev.crucible.snapshot.target;

/** What no scope allows: init, the engine's own process, or a tree that holds it or its parent. */
final class BasicRefusals {

    private BasicRefusals() {
    }

    static void check(ResolvedTarget t) {
        long self = ProcessHandle.current().pid();
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        for (ProcessRef p : t.processes()) {
            if (p.pid() == 1) {
                throw new TargetOutOfScopeException("target " + t.description() + " is (or holds) PID 1, the host's init; refused");
            }
            if (p.pid() == self || p.pid() == parent) {
                throw new TargetOutOfScopeException("target " + t.description() + " holds the snapshot agent itself (pid "
                        + p.pid() + "); refused");
            }
        }
    }
}
