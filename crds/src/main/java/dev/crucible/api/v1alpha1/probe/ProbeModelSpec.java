package dev.crucible.api.v1alpha1.probe;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** A PROPEL activation probe over a frozen LLM that predicts whether a task is in the learnable band. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.referenceModel.numLayers) || self.layer < self.referenceModel.numLayers",
        message = "layer must be below referenceModel.numLayers", fieldPath = ".layer")
@ValidationRule(value = "self.heads.all(h, self.heads.exists_one(o, o.name == h.name))",
        message = "head names must be unique", fieldPath = ".heads")
@ValidationRule(value = "!has(self.referenceModel.numLayers) || self.heads.all(h, !has(h.layer) || h.layer < self.referenceModel.numLayers)",
        message = "a head's layer must be below referenceModel.numLayers", fieldPath = ".heads")
@ValidationRule(value = "!has(self.referenceModel.numLayers) || !has(self.training) || !has(self.training.layers) || self.training.layers.all(l, l < self.referenceModel.numLayers)",
        message = "training layers must be below referenceModel.numLayers", fieldPath = ".training.layers")
public class ProbeModelSpec {
    @Required
    public ReferenceModelSpec referenceModel;

    @JsonPropertyDescription("Transformer layer whose hidden states feed the heads (0 = embeddings).")
    @Required
    @Min(0)
    @Max(512)
    public Integer layer;

    @Default("mean_last_half")
    public Pooling pooling;

    public TrajectorySpec trajectory;

    @Required
    @Size(min = 1, max = 16)
    public List<HeadSpec> heads;

    public RewardSpec reward;

    @Required
    public TargetBand targetBand;

    public ServingSpec serving;

    public TrainingSpec training;
}
