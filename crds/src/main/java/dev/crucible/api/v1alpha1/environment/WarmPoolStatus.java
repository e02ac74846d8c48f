package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The warm pool as last observed; its WarmPool condition says why it is short. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WarmPoolStatus {
    @JsonPropertyDescription("Unclaimed pods running and ready to be claimed.")
    public Integer ready;
    @JsonPropertyDescription("Unclaimed pods not ready yet (scheduling, workspace set-up, sidecar start).")
    public Integer starting;
    @JsonPropertyDescription("Pods taken by a Rollout that still exist (a claimed pod never returns to the pool).")
    public Integer claimed;
    @JsonPropertyDescription("Unclaimed pods the pool aims for now: the last minute's claims, between min and max.")
    public Integer target;
}
