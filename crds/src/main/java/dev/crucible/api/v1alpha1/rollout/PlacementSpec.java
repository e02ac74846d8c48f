package dev.crucible.api.v1alpha1.rollout;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Extra scheduling constraints, merged with the operator's GPU / CPU placement. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PlacementSpec {
    public Map<String, String> nodeSelector;
    @Size(max = 32)
    public List<Toleration> tolerations;
}
