package dev.crucible.api.v1alpha1.probe;

import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The probe server Deployment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.device) || self.device != 'cuda' || (has(self.gpus) && self.gpus > 0)",
        message = "device cuda needs gpus > 0", fieldPath = ".gpus")
public class ServingSpec {
    @Default("1")
    @Min(0)
    @Max(64)
    public Integer replicas;

    @JsonPropertyDescription("nvidia.com/gpu per replica; 0 serves on CPU.")
    @Default("1")
    @Min(0)
    @Max(8)
    public Integer gpus;

    @Default("auto")
    public Device device;

    @JsonPropertyDescription("Image of the probe server; defaults to the operator's.")
    @Size(max = 1024)
    @Pattern("^[a-zA-Z0-9][a-zA-Z0-9._/:@-]*$")
    public String image;

    @JsonPropertyDescription("Token budget of one dynamic batch.")
    @Default("16384")
    @Min(16)
    @Max(1048576)
    public Integer maxBatchTokens;

    @JsonPropertyDescription("Largest request body accepted, in bytes.")
    @Default("8388608")
    @Min(1024)
    @Max(268435456)
    public Integer maxRequestBytes;

    public Map<String, String> nodeSelector;
}
