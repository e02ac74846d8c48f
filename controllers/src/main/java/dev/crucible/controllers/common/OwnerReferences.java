package dev.crucible.controllers.common;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/** Controller owner references, so the garbage collector removes what a deleted Rollout leaves. */
public final class OwnerReferences {

    private OwnerReferences() {
    }

    public static OwnerReference controlledBy(HasMetadata owner) {
        OwnerReference ref = ownedBy(owner);
        ref.setController(true);
        ref.setBlockOwnerDeletion(true);
        return ref;
    }

    /**
     * An owner that is not the controller: the garbage collector deletes the object with its owner, and
     * deleting the owner does not wait for it (an environment's shared ConfigMap).
     */
    public static OwnerReference ownedBy(HasMetadata owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .build();
    }
}
