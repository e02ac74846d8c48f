package dev.crucible.controllers.common;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Labels and names on everything a Rollout owns. Names are deterministic so that a restarted operator
 * finds what it already created instead of creating it twice.
 */
public final class RolloutLabels {
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "crucible-operator";
    public static final String ROLLOUT = "crucible.dev/rollout";
    public static final String ROLE = "crucible.dev/role";
    public static final String INDEX = "crucible.dev/index";
    public static final String ENVIRONMENT = "crucible.dev/environment";
    public static final String GROUP = "crucible.dev/group";
    /** On a single-pod Rollout's pod: which shared egress NetworkPolicy selects it (a hash of its allow-list). */
    public static final String EGRESS = "crucible.dev/egress";
    /** Scheduling gate held on every gang member until the whole gang exists. */
    public static final String GANG_GATE = "crucible.dev/gang";
    /** Role of a rollout whose environment has no topology. */
    public static final String SINGLE_ROLE = "main";
    public static final String AGENT_CONTAINER = "agent";
    public static final String VERIFIER_CONTAINER = "verifier";
    /** Runs graded commands for the sidecar, from the environment's image (dev.crucible.contract.GradingContainer). */
    public static final String GRADING_CONTAINER = "grading";
    /** Interactive pods only: runs the trainer's bash steps for the sidecar (contract AgentExecContainer). */
    /** The isolated oracle's untrusted workers (issue 33): the code under test, apart from the trusted grading process. */
    public static final String ORACLE_WORKER_CONTAINER = "oracle-worker";
    public static final String AGENT_EXEC_CONTAINER = "agent-exec";
    public static final String INIT_CONTAINER = "workspace-init";

    private RolloutLabels() {
    }

    public static String podName(String rollout, String role, int index) {
        return rollout + "-" + role + "-" + index;
    }

    public static String serviceName(String rollout) {
        return rollout;
    }

    public static String networkPolicyName(String rollout) {
        return rollout + "-egress";
    }

    /** Labels shared by every object of one rollout; the selector of its Service and NetworkPolicy. */
    public static Map<String, String> forRollout(String rollout) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MANAGED_BY, MANAGED_BY_VALUE);
        labels.put(ROLLOUT, truncate(rollout));
        return labels;
    }

    /** Label values are limited to 63 characters; names longer than that are cut and hashed. */
    public static String truncate(String value) {
        if (value.length() <= 63) {
            return value;
        }
        String hash = Integer.toHexString(value.hashCode());
        return value.substring(0, 62 - hash.length()) + "-" + hash;
    }
}
