package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The frozen reference model whose hidden states the probe reads. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReferenceModelSpec {
    @JsonPropertyDescription("ONNX file with hidden-state outputs, relative to the model volume.")
    @Required
    @Pattern("^[^/].*\\.onnx$")
    @Size(max = 1024)
    public String path;

    @JsonPropertyDescription("tokenizer.json of the model, relative to the model volume.")
    @Required
    @Pattern("^[^/].*\\.json$")
    @Size(max = 1024)
    public String tokenizerPath;

    @JsonPropertyDescription("PersistentVolumeClaim holding model, tokenizer and heads.")
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String claimName;

    @JsonPropertyDescription("Tokens kept per item (left-truncated, so the end of the task survives).")
    @Default("2048")
    @Min(8)
    @Max(131072)
    public Integer maxTokens;

    @JsonPropertyDescription("Number of transformer layers; bounds the layer fields.")
    @Min(1)
    @Max(512)
    public Integer numLayers;
}
