package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One probe head; several form an ensemble combined by worst-case min. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HeadSpec {
    @Required
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_LABEL)
    @Size(max = 63)
    public String name;

    @Required
    public HeadArchitecture architecture;

    @JsonPropertyDescription("Weights file (JSON written by crucible probe train), relative to the model volume.")
    @Required
    @Size(min = 1, max = 1024)
    public String weightsPath;

    @JsonPropertyDescription("Layer for this head; defaults to spec.layer.")
    @Min(0)
    @Max(512)
    public Integer layer;

    @JsonPropertyDescription("Pooling for this head; defaults to spec.pooling.")
    public Pooling pooling;
}
