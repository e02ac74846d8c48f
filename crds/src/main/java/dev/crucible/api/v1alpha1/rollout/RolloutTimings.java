package dev.crucible.api.v1alpha1.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** When each lifecycle step happened (RFC 3339). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutTimings {
    public String podsCreatedAt;
    public String startedAt;
    public String runningAt;
    public String verifyingAt;
    public String finishedAt;
    @JsonPropertyDescription("Milliseconds from creation to all pods created.")
    public Long createToPodsMillis;
    @JsonPropertyDescription("Milliseconds from creation to Running.")
    public Long createToRunningMillis;
}
