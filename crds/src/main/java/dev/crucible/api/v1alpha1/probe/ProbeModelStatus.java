package dev.crucible.api.v1alpha1.probe;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Observed state of a probe: serving endpoint, replicas, training metrics. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProbeModelStatus {
    public Long observedGeneration;
    @JsonPropertyDescription("Pending, Ready, Degraded or Failed.")
    public String phase;
    public List<Condition> conditions = new ArrayList<>();
    @JsonPropertyDescription("In-cluster URL of the scoring API.")
    public String endpoint;
    public Integer replicas;
    public Integer readyReplicas;
    public TrainingMetrics training;
}
