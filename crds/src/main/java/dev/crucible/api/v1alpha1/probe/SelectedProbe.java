package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The configuration training selected. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SelectedProbe {
    public Integer layer;
    public String pooling;
    public String architecture;
}
