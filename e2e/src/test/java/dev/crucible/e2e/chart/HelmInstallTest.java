package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import dev.crucible.operator.webhook.WebhookCertificate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart installs for real, with helm-java, into the real kube-apiserver tier: every object it
 * renders is accepted and stored. Applying the same manifests again (as a GitOps sync does) changes
 * nothing. This API server has no cert-manager, so the chart installs the webhook in self-signed mode:
 * the operator's certificate bootstrap, run as the chart's ServiceAccount, fills the chart's Secret and
 * the caBundle with exactly the RBAC the chart grants, and a GitOps re-apply leaves both alone. The
 * release is uninstalled at the end so the other tests sharing the API server are unaffected.
 */
class HelmInstallTest {

    private static final String NAMESPACE = "crucible-system";
    private static final String SELF_SIGNED_SECRET = "crucible-webhook-selfsigned";

    @TempDir
    Path certDir;

    @Test
    void chartInstallsIntoTheRealApiServerAndReappliesWithoutChange() throws Exception {
        LocalCluster cluster = SharedCluster.cluster();
        KubernetesClient client = cluster.client();
        Helm chart = new Helm(ChartRendering.chartDir());
        if (client.namespaces().withName("team-a").get() == null) {
            client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                    .withNewMetadata().withName("team-a").endMetadata().build()).create();
        }
        try {
            Release release = chart.install().withName("crucible").withNamespace(NAMESPACE).createNamespace()
                    .withKubeConfig(cluster.kubeconfig())
                    .set("watchNamespaces[0]", "team-a").set("operator.replicas", 1).call();
            assertThat(release.getStatus()).isEqualTo("deployed");

            List<HasMetadata> rendered = StrictDecoding.decode(ChartRendering.render(Map.of(
                    "watchNamespaces[0]", "team-a", "operator.replicas", 1)));
            for (HasMetadata o : rendered) {
                HasMetadata stored = client.resource(o).inNamespace(namespaceOf(o)).get();
                assertThat(stored).as("stored " + o.getKind() + "/" + o.getMetadata().getName()).isNotNull();
            }
            assertThat(rendered).extracting(HasMetadata::getKind)
                    .contains("Deployment", "DaemonSet", "ClusterRole", "Role", "ConfigMap", "Service",
                            "ValidatingWebhookConfiguration", "Secret")
                    .doesNotContain("Certificate"); // no cert-manager here: the operator issues the certificate

            WebhookCertificate issued = SelfSignedModeAsTheOperator.bootstrap(cluster, NAMESPACE, certDir);
            String caBundle = caBundle(client);
            assertThat(caBundle).isEqualTo(Base64.getEncoder().encodeToString(issued.caBundle().getBytes(StandardCharsets.UTF_8)));

            // A GitOps tool takes the manifests over with server-side apply, then syncs again: the
            // second apply of the same manifests must change nothing (no drift, no defaulting churn).
            Map<String, String> versions = new HashMap<>();
            for (int sync = 0; sync < 2; sync++) {
                for (HasMetadata o : rendered) {
                    if (o.getKind().equals("Secret") && !o.getMetadata().getName().equals(SELF_SIGNED_SECRET)) {
                        continue; // a token Secret may be created outside the chart
                    }
                    client.resource(o).inNamespace(namespaceOf(o)).fieldManager("gitops").forceConflicts().serverSideApply();
                    if (sync == 0) {
                        versions.put(key(o), client.resource(o).inNamespace(namespaceOf(o)).get().getMetadata().getResourceVersion());
                    }
                }
            }
            for (HasMetadata o : rendered) {
                if (o.getKind().equals("Secret") && !o.getMetadata().getName().equals(SELF_SIGNED_SECRET)) {
                    continue;
                }
                HasMetadata stored = client.resource(o).inNamespace(namespaceOf(o)).get();
                assertThat(stored.getMetadata().getResourceVersion()).as("resourceVersion of " + key(o) + " after re-apply")
                        .isEqualTo(versions.get(key(o)));
            }
            // The operator's data and caBundle survived the GitOps syncs (their manifests carry neither).
            assertThat(caBundle(client)).isEqualTo(caBundle);
            assertThat(WebhookCertificate.fromSecretData(client.secrets().inNamespace(NAMESPACE).withName(SELF_SIGNED_SECRET).get()
                    .getData())).isEqualTo(issued);
        } finally {
            Helm.uninstall("crucible").withNamespace(NAMESPACE).withKubeConfig(cluster.kubeconfig()).call();
        }
        assertThat(client.apps().deployments().inNamespace(NAMESPACE).withName("crucible").get()).isNull();
        assertThat(client.secrets().inNamespace(NAMESPACE).withName(SELF_SIGNED_SECRET).get()).as("uninstall removes it").isNull();
        assertThat(client.admissionRegistration().v1().validatingWebhookConfigurations().withName("crucible").get()).isNull();
    }

    private static String caBundle(KubernetesClient client) {
        return client.admissionRegistration().v1().validatingWebhookConfigurations().withName("crucible").get()
                .getWebhooks().get(0).getClientConfig().getCaBundle();
    }

    private static String namespaceOf(HasMetadata o) {
        return o.getMetadata().getNamespace() != null ? o.getMetadata().getNamespace() : NAMESPACE;
    }

    private static String key(HasMetadata o) {
        return o.getKind() + "/" + namespaceOf(o) + "/" + o.getMetadata().getName();
    }
}
