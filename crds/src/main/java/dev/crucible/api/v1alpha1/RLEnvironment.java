package dev.crucible.api.v1alpha1;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentStatus;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A packaged RL environment with its verifier. */
@Group(Api.GROUP)
@Version(Api.VERSION)
@ShortNames("rlenv")
@Categories(Api.CATEGORY)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Verifier", jsonPath = ".spec.verifier.type", type = Type.STRING)
@AdditionalPrinterColumn(name = "Rollouts", jsonPath = ".status.statistics.rollouts", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Solve-Rate", jsonPath = ".status.statistics.solveRate", type = Type.NUMBER)
@AdditionalPrinterColumn(name = "Pool-Ready", jsonPath = ".status.warmPool.ready", type = Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Pool-Starting", jsonPath = ".status.warmPool.starting", type = Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Pool-Claimed", jsonPath = ".status.warmPool.claimed", type = Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Pool-Target", jsonPath = ".status.warmPool.target", type = Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class RLEnvironment extends CustomResource<RLEnvironmentSpec, RLEnvironmentStatus> implements Namespaced {

    /** Required, as the API server then refuses an object without spec (the schema says so). */
    @Override
    @Required
    public RLEnvironmentSpec getSpec() {
        return super.getSpec();
    }
}
