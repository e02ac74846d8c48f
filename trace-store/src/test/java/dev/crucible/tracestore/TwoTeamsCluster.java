package dev.crucible.tracestore;

import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * The real API server tier (e2e's {@link LocalCluster}: etcd + kube-apiserver with RBAC and ServiceAccount tokens) with
 * Crucible's CRDs and two teams: {@code team-a} (user {@code alice}) and {@code team-b} (user {@code bob}), each a
 * ServiceAccount allowed to get and list Rollouts and RolloutSnapshots in its own namespace only (alice may also create
 * Rollouts in team A, bob none in team B), and each namespace's trace writer
 * ({@link StoreSettings#WRITER_SERVICE_ACCOUNT}). Tokens come from the TokenRequest API, as a kubelet's would.
 */
final class TwoTeamsCluster implements AutoCloseable {
    static final String A = "team-a";
    static final String B = "team-b";

    final LocalCluster cluster;
    final KubernetesClient admin;

    private TwoTeamsCluster(LocalCluster cluster) {
        this.cluster = cluster;
        this.admin = cluster.client();
    }

    private static TwoTeamsCluster shared;

    /** One cluster for every test class of this module (an API server takes ~20 s to start on 2 busy cores). */
    static synchronized TwoTeamsCluster shared() {
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
        }
        return shared;
    }

    private static TwoTeamsCluster start() {
        KubeBinaries bin = KubeBinaries.find();
        Assumptions.assumeTrue(bin != null, KubeBinaries.MISSING);
        TwoTeamsCluster c = new TwoTeamsCluster(LocalCluster.start(bin));
        CrdInstaller.install(c.admin);
        for (var team : Map.of(A, "alice", B, "bob").entrySet()) {
            String ns = team.getKey();
            c.admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            for (String sa : List.of(team.getValue(), StoreSettings.WRITER_SERVICE_ACCOUNT)) {
                c.admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder().withNewMetadata().withName(sa)
                        .endMetadata().build()).create();
            }
            c.admin.rbac().roles().inNamespace(ns).resource(new RoleBuilder().withNewMetadata().withName("rollout-reader").endMetadata()
                    .addNewRule().withApiGroups("crucible.dev").withResources("rollouts", "rolloutsnapshots").withVerbs("get", "list").endRule()
                    .build()).create();
            c.admin.rbac().roleBindings().inNamespace(ns).resource(new RoleBindingBuilder().withNewMetadata()
                    .withName("rollout-reader").endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "Role", "rollout-reader")
                    .addNewSubject().withKind("ServiceAccount").withName(team.getValue()).withNamespace(ns).endSubject()
                    .build()).create();
        }
        // alice may also create Rollouts in team A (the console's revert makes a branch with her token); bob may not in B
        c.admin.rbac().roles().inNamespace(A).resource(new RoleBuilder().withNewMetadata().withName("rollout-brancher").endMetadata()
                .addNewRule().withApiGroups("crucible.dev").withResources("rollouts").withVerbs("create").endRule().build()).create();
        c.admin.rbac().roleBindings().inNamespace(A).resource(new RoleBindingBuilder().withNewMetadata().withName("rollout-brancher")
                .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "Role", "rollout-brancher")
                .addNewSubject().withKind("ServiceAccount").withName("alice").withNamespace(A).endSubject().build()).create();
        return c;
    }

    /**
     * A client of the store's own identity, {@code system:serviceaccount:crucible-system:crucible-trace-store}, holding
     * exactly the chart's ClusterRole for it (helm/crucible/templates/trace-store.yaml; e2e's ChartTraceStoreTest checks
     * the chart has these three rules): the store must work with no more.
     */
    synchronized KubernetesClient storeClient() {
        String ns = "crucible-system";
        if (admin.namespaces().withName(ns).get() == null) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder().withNewMetadata().withName("crucible-trace-store")
                    .endMetadata().build()).create();
            admin.rbac().clusterRoles().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder().withNewMetadata()
                    .withName("crucible-trace-store").endMetadata()
                    .addNewRule().withApiGroups("authentication.k8s.io").withResources("tokenreviews").withVerbs("create").endRule()
                    .addNewRule().withApiGroups("authorization.k8s.io").withResources("subjectaccessreviews").withVerbs("create").endRule()
                    .addNewRule().withApiGroups("crucible.dev").withResources("rollouts").withVerbs("get").endRule().build()).create();
            admin.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                    .withNewMetadata().withName("crucible-trace-store").endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "crucible-trace-store")
                    .addNewSubject().withKind("ServiceAccount").withName("crucible-trace-store").withNamespace(ns).endSubject()
                    .build()).create();
        }
        io.fabric8.kubernetes.client.Config c = io.fabric8.kubernetes.client.Config.fromKubeconfig(cluster.readKubeconfig());
        c.setImpersonateUsername("system:serviceaccount:" + ns + ":crucible-trace-store");
        c.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated");
        return new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(c).build();
    }

    /** A token of {@code namespace/serviceAccount} for {@code audience} (null: the API server's own). */
    String token(String namespace, String serviceAccount, String audience) {
        var spec = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L);
        if (audience != null) spec.withAudiences(audience);
        return admin.serviceAccounts().inNamespace(namespace).withName(serviceAccount)
                .tokenRequest(spec.endSpec().build()).getStatus().getToken();
    }

    String writer(String namespace) {
        return token(namespace, StoreSettings.WRITER_SERVICE_ACCOUNT, StoreSettings.WRITER_AUDIENCE);
    }

    /** A Rollout as a user would create it (the store reads its environment and labels). */
    GenericKubernetesResource rollout(String namespace, String name, String environment, Map<String, String> labels) {
        return rollout(namespace, name, environment, labels, Map.of());
    }

    /** As {@link #rollout(String, String, String, Map)}, with more of the spec (e.g. {@code restoreFrom} for a branch). */
    GenericKubernetesResource rollout(String namespace, String name, String environment, Map<String, String> labels, Map<String, Object> more) {
        Map<String, Object> spec = new java.util.HashMap<>(Map.of("environmentRef", Map.of("name", environment), "mode", "embedded",
                "agent", Map.of("image", "crucible/examples/python-calc:0.1.0-SNAPSHOT", "command", List.of("true"))));
        spec.putAll(more);
        GenericKubernetesResource r = new GenericKubernetesResourceBuilder().withApiVersion("crucible.dev/v1alpha1").withKind("Rollout")
                .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels).endMetadata()
                .withAdditionalProperties(Map.of("spec", spec)).build();
        return admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(namespace).resource(r).create();
    }

    /** A RolloutSnapshot of {@code rollout} with its status as the operator leaves it once Ready (this tier runs no operator). */
    void readySnapshot(String namespace, String name, String rollout, java.time.Instant consistentAt) {
        GenericKubernetesResource s = new GenericKubernetesResourceBuilder().withApiVersion("crucible.dev/v1alpha1").withKind("RolloutSnapshot")
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("rolloutRef", Map.of("name", rollout), "trigger", "periodic"))).build();
        var made = admin.genericKubernetesResources("crucible.dev/v1alpha1", "RolloutSnapshot").inNamespace(namespace).resource(s).create();
        made.setAdditionalProperty("status", Map.of("phase", "Ready", "consistentAt", consistentAt.toString()));
        admin.genericKubernetesResources("crucible.dev/v1alpha1", "RolloutSnapshot").inNamespace(namespace).resource(made).updateStatus();
    }

    void deleteRollout(String namespace, String name) {
        admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(namespace).withName(name).delete();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
