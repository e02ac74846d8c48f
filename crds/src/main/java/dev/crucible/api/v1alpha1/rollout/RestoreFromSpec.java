package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Start a rollout from a snapshot instead of from setup: a branch. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RestoreFromSpec {
    @JsonPropertyDescription("RolloutSnapshot to restore (same namespace, phase Ready).")
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String snapshotName;
}
