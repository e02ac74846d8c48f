package dev.crucible.contract;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the hack policy ({@code spec.hackPolicy.action}) does when the monitor reports a counted finding:
 * the RLEnvironment's field type, the sidecar's policy and the findings' {@code action}, one vocabulary.
 */
public enum PolicyAction {
    /** Record the finding; the rollout goes on and ends Hacked. */
    @JsonProperty("flag") FLAG,
    /** Stop the agent at once; the rollout ends Hacked. */
    @JsonProperty("terminate") TERMINATE,
    /** Restore the last good snapshot and continue. */
    @JsonProperty("revert") REVERT;

    /** The name manifests and results use. */
    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The action written {@code s}, or null when it names none. */
    public static PolicyAction of(String s) {
        for (PolicyAction a : values()) {
            if (a.wire().equals(s)) return a;
        }
        return null;
    }
}
