package dev.crucible.api.v1alpha1;

import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotSpec;
import dev.crucible.api.v1alpha1.snapshot.RolloutSnapshotStatus;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A consistent CRIU / cuda-checkpoint snapshot of a running rollout. */
@Group(Api.GROUP)
@Version(Api.VERSION)
@ShortNames("rsnap")
@Categories(Api.CATEGORY)
@AdditionalPrinterColumn(name = "Rollout", jsonPath = ".spec.rolloutRef.name", type = Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Bytes", jsonPath = ".status.totalBytes", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Freeze-ms", jsonPath = ".status.freezeWindowMillis", type = Type.INTEGER)
@AdditionalPrinterColumn(name = "Trigger", jsonPath = ".spec.trigger", type = Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class RolloutSnapshot extends CustomResource<RolloutSnapshotSpec, RolloutSnapshotStatus> implements Namespaced {

    /** Required, as the API server then refuses an object without spec (the schema says so). */
    @Override
    @Required
    public RolloutSnapshotSpec getSpec() {
        return super.getSpec();
    }
}
