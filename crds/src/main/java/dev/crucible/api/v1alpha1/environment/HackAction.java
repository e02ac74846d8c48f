package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What the hack policy does when the monitor reports a finding. */
public enum HackAction {
    /** Record the finding; the rollout goes on and ends Hacked. */
    @JsonProperty("flag") FLAG,
    /** Stop the agent at once; the rollout ends Hacked. */
    @JsonProperty("terminate") TERMINATE,
    /** Restore the last good snapshot and continue. */
    @JsonProperty("revert") REVERT
}
