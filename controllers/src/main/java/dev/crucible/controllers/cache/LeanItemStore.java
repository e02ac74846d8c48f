package dev.crucible.controllers.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * Informer cache that drops {@code metadata.managedFields} on the way in: the reconcilers never read
 * them, and on pods written by the operator, the scheduler and the kubelet they are a large share of
 * each object (operator heap at thousands of Rollouts).
 */
public class LeanItemStore<T extends HasMetadata> extends BasicItemStore<T> {

    public LeanItemStore() {
        super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public T put(String key, T obj) {
        if (obj != null && obj.getMetadata() != null) {
            obj.getMetadata().setManagedFields(null);
        }
        return super.put(key, obj);
    }
}
