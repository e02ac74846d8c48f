package dev.crucible.api.v1alpha1.environment;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Observed state of an RLEnvironment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RLEnvironmentStatus {
    public Long observedGeneration;
    @JsonPropertyDescription("Ready or Invalid.")
    public String phase;
    public List<Condition> conditions = new ArrayList<>();
    public DerivedStatus derived;
    public EnvironmentStatistics statistics;
    public WarmPoolStatus warmPool;
}
