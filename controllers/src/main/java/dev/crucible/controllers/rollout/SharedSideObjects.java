package dev.crucible.controllers.rollout;

import dev.crucible.controllers.apply.ServerSideApply;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The objects many Rollouts share (an environment version's ConfigMap, an egress NetworkPolicy, the
 * namespace's API token Secret) are written when a Rollout first needs them and then remembered for
 * {@link #REMEMBER}: their names carry a hash of what they hold, so a remembered name is still right,
 * and a Rollout's pod is then its only write. Forgetting after a while re-writes an object someone
 * deleted (the same intent applied again changes nothing). What is remembered is per environment object
 * (its UID, the {@code scope}): a namespace deleted and made again, with its environment, gets its
 * objects at once, not after {@link #REMEMBER} of pods waiting for a ConfigMap that is gone.
 */
final class SharedSideObjects {
    static final Duration REMEMBER = Duration.ofMinutes(10);
    /** Entries kept before expired ones are swept (a few per environment and namespace in practice). */
    private static final int SWEEP_ABOVE = 4096;

    private final Map<String, Long> writtenAt = new ConcurrentHashMap<>();

    /** Server-side applies {@code object} unless this operator wrote it within {@link #REMEMBER}. */
    void apply(String scope, KubernetesClient client, HasMetadata object) {
        ensure(scope, object, () -> ServerSideApply.apply(client, object));
    }

    /**
     * Creates {@code object} unless it exists (409 keeps the existing one): for what must never change once
     * made, such as a token running sidecars already read. Needs only the create verb.
     */
    void createOnce(String scope, KubernetesClient client, HasMetadata object) {
        ensure(scope, object, () -> {
            try {
                client.resource(object).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        });
    }

    /** Hands {@code object} to {@code write} unless it was written within {@link #REMEMBER}. */
    <T extends HasMetadata> void unlessRemembered(String scope, T object, java.util.function.Consumer<T> write) {
        if (!remembered(scope, object)) {
            write.accept(object);
        }
    }

    private boolean remembered(String scope, HasMetadata object) {
        Long at = writtenAt.get(key(scope, object));
        return at != null && System.nanoTime() - at < REMEMBER.toNanos();
    }

    private static String key(String scope, HasMetadata object) {
        return object.getKind() + "/" + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName() + "@" + scope;
    }

    private void ensure(String scope, HasMetadata object, Runnable write) {
        if (remembered(scope, object)) {
            return;
        }
        String key = key(scope, object);
        write.run();
        long now = System.nanoTime();
        writtenAt.put(key, now);
        if (writtenAt.size() > SWEEP_ABOVE) {
            writtenAt.values().removeIf(t -> now - t >= REMEMBER.toNanos());
        }
    }
}
