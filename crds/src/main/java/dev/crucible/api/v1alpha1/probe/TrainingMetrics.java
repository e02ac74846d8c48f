package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Cross-validated metrics of the selected probe. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrainingMetrics {
    public Double balancedAccuracy;
    public Double auc;
    public Double f1;
    public Double ece;
    public Double spearman;
    public Double rewardVariance;
    public SelectedProbe selected;
    public String trainedAt;
}
