package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.e2e.cluster.LocalCluster;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.CertificateFiles;
import dev.crucible.operator.webhook.SubjectAlternativeNames;
import dev.crucible.operator.webhook.WebhookCertificate;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Runs the operator's certificate bootstrap as the chart's ServiceAccount (API server impersonation,
 * RBAC enforced), with the settings the chart's ConfigMap gives it: proof that the chart's Secret,
 * webhook configuration and resourceName-limited RBAC fit what the operator does, and no more.
 */
final class SelfSignedModeAsTheOperator {

    private SelfSignedModeAsTheOperator() {
    }

    static WebhookCertificate bootstrap(LocalCluster cluster, String namespace, Path certDir) {
        try (KubernetesClient operator = asServiceAccount(cluster, namespace, "crucible")) {
            BootstrapSettings settings = new BootstrapSettings(namespace, "crucible-webhook-selfsigned", "crucible",
                    SubjectAlternativeNames.forService("crucible-webhook", namespace, "cluster.local", List.of()),
                    Duration.ofDays(3650), Duration.ofDays(365), Duration.ofDays(30), new CertificateFiles(certDir));
            CertificateBootstrap.Outcome outcome = new CertificateBootstrap(operator, settings, Clock.systemUTC()).ensure();
            assertThat(outcome.issuedHere()).isTrue();
            assertThat(outcome.caBundlePatched()).isTrue();

            // The same identity can touch nothing else: no other Secret, no new Secret, no other webhook.
            assertThatThrownBy(() -> operator.secrets().inNamespace(namespace).withName("crucible-snapshot-agent-token").get())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            assertThatThrownBy(() -> operator.secrets().inNamespace(namespace).resource(new SecretBuilder()
                    .withNewMetadata().withName("sneaky").endMetadata().build()).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            assertThatThrownBy(() -> operator.admissionRegistration().v1().validatingWebhookConfigurations().list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            return outcome.certificate();
        }
    }

    private static KubernetesClient asServiceAccount(LocalCluster cluster, String namespace, String name) {
        Config config = Config.fromKubeconfig(cluster.readKubeconfig());
        config.setImpersonateUsername("system:serviceaccount:" + namespace + ":" + name);
        config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated");
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
