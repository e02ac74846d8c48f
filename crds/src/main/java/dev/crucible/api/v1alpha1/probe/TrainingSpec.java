package dev.crucible.api.v1alpha1.probe;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Sweep and selection run by crucible probe train (as a Job in the cluster). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrainingSpec {
    @JsonPropertyDescription("JSONL corpus (task, k, n, group), relative to the model volume.")
    @Required
    @Size(min = 1, max = 1024)
    public String corpus;

    @Size(max = 64)
    public List<@Min(0) @Max(512) Integer> layers;

    @Size(max = 7)
    public List<Pooling> poolings;

    @Size(max = 3)
    public List<HeadArchitecture> architectures;

    @Default("5")
    @Min(2)
    @Max(20)
    public Integer folds;

    @JsonPropertyDescription("Corpus field grouping items into folds (cross-repository).")
    @Default("group")
    @Size(min = 1, max = 64)
    public String groupKey;

    @Default("weighted-loss")
    public Balance balance;

    @Default("17")
    public Long seed;
}
