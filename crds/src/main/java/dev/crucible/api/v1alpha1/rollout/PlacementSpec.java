package dev.crucible.api.v1alpha1.rollout;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Extra scheduling constraints, merged with the operator's GPU / CPU placement. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.tolerations) || self.tolerations.all(t, !has(t.operator) || t.operator in ['', 'Exists', 'Equal'])",
        message = "a toleration's operator must be Exists or Equal", fieldPath = ".tolerations")
@ValidationRule(value = "!has(self.tolerations) || self.tolerations.all(t, !has(t.effect) || t.effect in ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
        message = "a toleration's effect must be NoSchedule, PreferNoSchedule or NoExecute", fieldPath = ".tolerations")
@ValidationRule(value = "!has(self.tolerations) || self.tolerations.all(t, !has(t.operator) || t.operator != 'Exists' || !has(t.value) || t.value == '')",
        message = "a toleration with operator Exists takes no value", fieldPath = ".tolerations")
@ValidationRule(value = "!has(self.tolerations) || self.tolerations.all(t, (has(t.key) && t.key != '') || (has(t.operator) && t.operator == 'Exists'))",
        message = "a toleration without a key needs operator Exists", fieldPath = ".tolerations")
@ValidationRule(value = "!has(self.tolerations) || self.tolerations.all(t, !has(t.tolerationSeconds) || (has(t.effect) && t.effect == 'NoExecute'))",
        message = "tolerationSeconds applies only to effect NoExecute", fieldPath = ".tolerations")
public class PlacementSpec {
    public Map<String, String> nodeSelector;
    @Size(max = 32)
    public List<Toleration> tolerations;
}
