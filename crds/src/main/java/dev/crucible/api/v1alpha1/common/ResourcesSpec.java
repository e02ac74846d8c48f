package dev.crucible.api.v1alpha1.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.*;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Compute a pod (or one replica of a role) asks for. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResourcesSpec {
    @JsonPropertyDescription("CPU request and limit, a Kubernetes quantity such as 2 or 500m.")
    @Pattern(Quantities.PATTERN)
    public String cpu;

    @JsonPropertyDescription("Memory request and limit, a Kubernetes quantity such as 4Gi.")
    @Pattern(Quantities.PATTERN)
    public String memory;

    @JsonPropertyDescription("Scratch disk for the workspace, a Kubernetes quantity.")
    @Pattern(Quantities.PATTERN)
    public String ephemeralStorage;

    @JsonPropertyDescription("Number of nvidia.com/gpu devices; 0 keeps the pod off GPU nodes.")
    @Min(0)
    @Max(16)
    public Integer gpus;

    @JsonPropertyDescription("GPU product the pod needs (node label nvidia.com/gpu.product), e.g. NVIDIA-H100-80GB-HBM3.")
    @Size(max = 128)
    public String gpuModel;
}
