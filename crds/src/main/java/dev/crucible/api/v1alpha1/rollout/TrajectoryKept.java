package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the sidecar kept of the rollout's trajectory (issue 36), from its result. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrajectoryKept {
    @JsonPropertyDescription("False when the recorder's cap was hit, a write failed, or the trace store refused or could not be reached: the stored trajectory is missing a part.")
    public Boolean complete;
    @JsonPropertyDescription("Events recorded.")
    public Long events;
    @JsonPropertyDescription("Why it is incomplete (the first reason).")
    public String problem;
}
