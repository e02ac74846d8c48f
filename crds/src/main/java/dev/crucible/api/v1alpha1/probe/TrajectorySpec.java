package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Agent trajectories: pool each turn, then aggregate over turns. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrajectorySpec {
    @Default("mean_full")
    public Pooling turnPooling;
    @Default("mean")
    public TurnAggregation aggregation;
    @Default("64")
    @Min(1)
    @Max(4096)
    public Integer maxTurns;
}
