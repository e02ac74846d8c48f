package dev.crucible.e2e.chart;

import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The chart's identity on the real API server: its ServiceAccount, its RBAC objects and the empty
 * Secrets it creates for the operator to fill, rendered by helm-java and applied; and a client that
 * impersonates the ServiceAccount (RBAC enforced) with every 403 recorded.
 */
final class ChartServiceAccount {

    /** What the chart renders that decides what the operator may do, or that it must find at start-up. */
    private static final Set<String> KINDS = Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
            "RoleBinding", "Secret");

    final String release;
    final String namespace;
    final String name;
    final ForbiddenCalls forbidden = new ForbiddenCalls();

    private ChartServiceAccount(String release, String namespace) {
        this.release = release;
        this.namespace = namespace;
        this.name = release;
    }

    /** Renders the chart for {@code release} in {@code namespace} with default values and applies its RBAC. */
    static ChartServiceAccount install(KubernetesClient admin, String release, String namespace, Map<String, Object> values) {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(release, namespace, values));
        for (HasMetadata o : objects) {
            if (KINDS.contains(o.getKind())) {
                admin.resource(o).forceConflicts().serverSideApply();
            }
        }
        return new ChartServiceAccount(release, namespace);
    }

    String user() {
        return "system:serviceaccount:" + namespace + ":" + name;
    }

    /** A client as the operator's pod would have, with the benchmark-grade connection limits of {@link LocalCluster}. */
    KubernetesClient client(LocalCluster cluster) {
        Config config = Config.fromKubeconfig(cluster.readKubeconfig());
        config.setImpersonateUsername(user());
        config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated");
        config.setMaxConcurrentRequests(256);
        config.setMaxConcurrentRequestsPerHost(256);
        return new KubernetesClientBuilder().withConfig(config)
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("forbidden-calls", forbidden))
                .build();
    }
}
