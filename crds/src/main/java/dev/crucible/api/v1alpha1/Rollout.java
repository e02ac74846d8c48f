package dev.crucible.api.v1alpha1;

import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One agent run against an RLEnvironment. */
@Group(Api.GROUP)
@Version(Api.VERSION)
@ShortNames("crro") // not "ro": Argo Rollouts has it (and the plural rollouts); see crds/README.md
@Categories(Api.CATEGORY)
@AdditionalPrinterColumn(name = "Environment", jsonPath = ".spec.environmentRef.name", type = Type.STRING)
@AdditionalPrinterColumn(name = "Mode", jsonPath = ".spec.mode", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Reward", jsonPath = ".status.reward", type = Type.NUMBER)
@AdditionalPrinterColumn(name = "Verdict", jsonPath = ".status.verdict", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Node", jsonPath = ".status.members[0].node", type = Type.STRING)
@AdditionalPrinterColumn(name = "Group", jsonPath = ".spec.group.id", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Start", jsonPath = ".status.start", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class Rollout extends CustomResource<RolloutSpec, RolloutStatus> implements Namespaced {

    /** Required, as the API server then refuses an object without spec (the schema says so). */
    @Override
    @Required
    public RolloutSpec getSpec() {
        return super.getSpec();
    }
}
