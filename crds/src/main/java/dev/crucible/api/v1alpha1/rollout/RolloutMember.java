package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One pod of the rollout (one per replica per role). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutMember {
    public String role;
    public Integer index;
    public String pod;
    public String node;
    @JsonPropertyDescription("The pod's phase as Kubernetes reports it.")
    public String podPhase;
    public Integer gpus;
}
