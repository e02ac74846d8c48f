package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/**
 * Pods of this environment kept set up ahead of demand (issue 39): scheduled, workspace filled, sidecar
 * started, holding no attempt. A Rollout takes a ready one and starts cold when none is ready.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.min) || !has(self.max) || self.min <= self.max",
        message = "min must not exceed max", fieldPath = ".min")
public class WarmPoolSpec {
    @JsonPropertyDescription("Ready pods kept at all times, whatever the claim rate.")
    @Default("0")
    @Min(0)
    @Max(1000)
    public Integer min;

    @JsonPropertyDescription("Most pods the pool holds unclaimed (ready or starting); the target follows the last minute's claims between min and max.")
    @Required
    @Min(1)
    @Max(1000)
    public Integer max;

    @JsonPropertyDescription("Seconds an unclaimed pod may wait; an older one is replaced.")
    @Default("3600")
    @Min(60)
    @Max(604800)
    public Integer ttlSeconds;

    @JsonPropertyDescription("Most pool pods created per second when refilling (a burst is served from the pool first).")
    @Default("5")
    @Min(1)
    @Max(100)
    public Integer refillPerSecond;

    @JsonPropertyDescription("Keep pool pods of an environment that asks for GPUs: each holds its GPUs while it waits, so it is off unless true. Pool pods are placed as cold ones are (GPU resources, node selector, tolerations).")
    @Default("false")
    public Boolean gpu;
}
