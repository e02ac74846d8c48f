package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.environment.EgressMode;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of an environment that only a cluster applies, named once at the start of a local run so
 * nobody mistakes a local result for one under those settings.
 */
final class ClusterOnlySettings {
    private ClusterOnlySettings() {}

    /** Empty when the environment uses nothing cluster-only. */
    static List<String> of(RLEnvironmentSpec s) {
        List<String> l = new ArrayList<>();
        if (s.image != null) l.add("image " + s.image + " (the agent uses this machine's tools)");
        if (s.sandbox != null && s.sandbox.runtimeClassName != null) l.add("runtimeClassName " + s.sandbox.runtimeClassName);
        if (s.sandbox != null && s.sandbox.network != null && s.sandbox.network.egress == EgressMode.ALLOW_LIST) {
            l.add("the egress allow-list (locally all network is denied under bubblewrap)");
        }
        if (s.resources != null && s.resources.gpus != null && s.resources.gpus > 0) l.add("resources.gpus (no GPU is handed to a local run)");
        if (s.topology != null) l.add("topology (one local process instead of roles × replicas)");
        return l;
    }
}
