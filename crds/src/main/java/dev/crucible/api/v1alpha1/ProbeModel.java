package dev.crucible.api.v1alpha1;

import dev.crucible.api.v1alpha1.probe.ProbeModelSpec;
import dev.crucible.api.v1alpha1.probe.ProbeModelStatus;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A PROPEL activation probe served on GPUs. */
@Group(Api.GROUP)
@Version(Api.VERSION)
@ShortNames("probe")
@Categories(Api.CATEGORY)
@AdditionalPrinterColumn(name = "Layer", jsonPath = ".spec.layer", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Pooling", jsonPath = ".spec.pooling", type = Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.readyReplicas", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Endpoint", jsonPath = ".status.endpoint", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "BalAcc", jsonPath = ".status.training.balancedAccuracy", type = Type.NUMBER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class ProbeModel extends CustomResource<ProbeModelSpec, ProbeModelStatus> implements Namespaced {

    /** Required, as the API server then refuses an object without spec (the schema says so). */
    @Override
    @Required
    public ProbeModelSpec getSpec() {
        return super.getSpec();
    }
}
