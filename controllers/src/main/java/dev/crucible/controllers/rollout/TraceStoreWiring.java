package dev.crucible.controllers.rollout;

import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;

/**
 * What a rollout pod needs to stream its trajectory to the cluster's trace store (issue 36), when the chart set one
 * ({@link OperatorSettings#traceStoreUrl()}): the pod runs as {@link OperatorSettings#TRACE_WRITER}, a ServiceAccount
 * with no role at all, whose projected token for the store's audience is mounted into the sidecar container only (the
 * pod still mounts no API-server token anywhere: the token is useless against the API server), and the sidecar gets
 * the store's URL and the token's path. The store checks the token's user is that account of the Rollout's namespace.
 */
final class TraceStoreWiring {
    static final String VOLUME = "trace-token";
    static final String MOUNT = "/var/run/secrets/crucible-trace";
    static final String TOKEN_KEY = "token";
    /** The kubelet refreshes the token at 80 % of this; the sidecar reads the file again at each request. */
    static final long TOKEN_SECONDS = 3600;

    private TraceStoreWiring() {}

    static boolean on(OperatorSettings settings) {
        return settings.traceStoreUrl() != null;
    }

    /** The pod's ServiceAccount: the writer when a store is set, else none named (the namespace's default, no token mounted). */
    static String serviceAccountName(OperatorSettings settings) {
        return on(settings) ? OperatorSettings.TRACE_WRITER : null;
    }

    static List<Volume> volumes(OperatorSettings settings) {
        if (!on(settings)) return List.of();
        return List.of(new VolumeBuilder().withName(VOLUME).withNewProjected().withDefaultMode(0440)
                .addNewSource().withNewServiceAccountToken().withAudience(OperatorSettings.TRACE_AUDIENCE)
                .withExpirationSeconds(TOKEN_SECONDS).withPath(TOKEN_KEY).endServiceAccountToken().endSource()
                .endProjected().build());
    }

    static List<VolumeMount> sidecarMounts(OperatorSettings settings) {
        return on(settings) ? List.of(RolloutPodBuilder.mount(VOLUME, MOUNT, true)) : List.of();
    }

    /** The sidecar's variables ({@code PodTrace}); the Rollout's namespace and name come from CRUCIBLE_NAMESPACE and CRUCIBLE_ROLLOUT. */
    static List<EnvVar> sidecarEnv(OperatorSettings settings) {
        if (!on(settings)) return List.of();
        return List.of(new EnvVar("CRUCIBLE_TRACE_STORE_URL", settings.traceStoreUrl(), null),
                new EnvVar("CRUCIBLE_TRACE_TOKEN_FILE", MOUNT + "/" + TOKEN_KEY, null));
    }

    /** The writer ServiceAccount of {@code namespace}, made by the operator before the first pod needs it. */
    static ServiceAccount writer(String namespace) {
        return new ServiceAccountBuilder().withNewMetadata().withName(OperatorSettings.TRACE_WRITER).withNamespace(namespace)
                .addToLabels("app.kubernetes.io/managed-by", "crucible").endMetadata()
                .withAutomountServiceAccountToken(false).build();
    }
}
