package dev.crucible.controllers.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Every object the operator writes goes through server-side apply under one field manager, so
 * {@code kubectl get -o yaml --show-managed-fields} says which fields are the operator's and a
 * GitOps tool that owns other fields of the same object never fights it. Status writes use the
 * same name (the reconcilers' {@code fieldManager}).
 */
public final class ServerSideApply {

    public static final String FIELD_MANAGER = "crucible-operator";

    private ServerSideApply() {
    }

    /**
     * Applies the operator's intent for {@code object}. Conflicts are forced: these objects are
     * derived from a custom resource, and the operator is their only rightful writer.
     */
    public static <T extends HasMetadata> T apply(KubernetesClient client, T object) {
        return apply(client, object, FIELD_MANAGER);
    }

    /**
     * Custom resources the operator creates for itself (periodic RolloutSnapshots) are applied by a
     * second manager: their own controller adds its finalizer by applying under {@link #FIELD_MANAGER}
     * with only metadata, which would otherwise drop every spec field that manager owned.
     */
    public static final String POLICY_FIELD_MANAGER = FIELD_MANAGER + "-policy";

    public static <T extends HasMetadata> T apply(KubernetesClient client, T object, String fieldManager) {
        return client.resource(object).fieldManager(fieldManager).forceConflicts().serverSideApply();
    }
}
