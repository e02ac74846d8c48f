package dev.crucible.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.operator.webhook.AdmissionHttpsServer;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.CertificateRotation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole self-signed path with the real kube-apiserver as the caller: the bootstrap issues the
 * certificate (with IP SAN 127.0.0.1, since this API server is a local process and reaches the webhook
 * by URL), the operator's HTTPS listener serves the real AdmissionReviewer with the bootstrap's files,
 * the bootstrap patches the caBundle of a ValidatingWebhookConfiguration registered by URL, and the API
 * server then refuses a semantically bad object with the field path and stores good ones. A rotation
 * (new serving certificate, reload, no restart) keeps the API server calling it.
 */
class AdmissionOverHttpsOnApiServerTest {

    @TempDir
    Path certs;

    @Test
    void realApiServerCallsTheWebhookOverTlsWithTheBootstrappedCertificate() throws Exception {
        KubernetesClient admin = SharedCluster.client();
        String ns = SharedCluster.namespace("webhook-tls");
        String vwcName = ns + "-validate";
        Vertx vertx = Vertx.vertx();
        BootstrapSettings settings = WebhookFixtures.settings(ns, "crucible-webhook-selfsigned", vwcName, certs, List.of("127.0.0.1"));
        WebhookFixtures.MovableClock clock = new WebhookFixtures.MovableClock();
        AdmissionHttpsServer server = new AdmissionHttpsServer(vertx, new AdmissionReviewer(InProcessOperator.validator()),
                "127.0.0.1", 0, settings.files());
        CertificateBootstrap bootstrap = new CertificateBootstrap(admin, settings, clock);
        try (CertificateRotation rotation = new CertificateRotation(bootstrap, server, Duration.ofHours(1), Duration.ofSeconds(5))) {
            // The chart's shape: webhook registered first, no caBundle; here by URL, and only for this namespace.
            // The bootstrap needs the port, so the server starts on files from a first check with no configuration yet.
            assertThat(rotation.check()).isTrue();
            int port = serverPort(server);
            admin.resource(configuration(vwcName, ns, port)).create();
            assertThat(rotation.check()).isTrue(); // now it patches the caBundle

            // A semantic error the CRD schema cannot see: refused by the webhook, with the field path.
            KubernetesClientException refused = (KubernetesClientException) org.assertj.core.api.Assertions.catchThrowable(
                    () -> admin.resource(example("invalid/07-env-fail-to-pass-overlap.yaml")).inNamespace(ns).create());
            assertThat(refused).isNotNull();
            assertThat(refused.getMessage()).contains("admission webhook \"validate.crucible.dev\" denied the request")
                    .contains("spec.verifier.passToPass[0]");
            assertThat(admin.genericKubernetesResources("crucible.dev/v1alpha1", "RLEnvironment").inNamespace(ns).list().getItems()).isEmpty();
            assertThatThrownBy(() -> admin.resource(example("invalid/27-protected-path-escapes.yaml")).inNamespace(ns).create())
                    .hasMessageContaining("denied the request").hasMessageContaining("spec.verifier.protectedPaths");

            // A bad Rollout: every invalid Rollout example is already refused by the CRD schema or CEL
            // before admission webhooks run; the message still names the field.
            assertThatThrownBy(() -> admin.resource(example("invalid/16-rollout-attempt-out-of-group.yaml")).inNamespace(ns).create())
                    .hasMessageContaining("spec.group");

            // Good objects pass through the webhook and are stored.
            long before = server.reviews();
            admin.resource(example("python-bugfix/environment.yaml")).inNamespace(ns).create();
            admin.resource(example("python-bugfix/rollout.yaml")).inNamespace(ns).create();
            assertThat(server.reviews()).as("the API server called the webhook for both").isGreaterThanOrEqualTo(before + 2);
            assertThat(admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(ns).list().getItems()).hasSize(1);

            // Rotation without a restart: the serving certificate is re-issued, the server reloads, the
            // API server keeps verifying it against the unchanged caBundle.
            clock.advance(Duration.ofDays(340));
            String oldCert = Files.readString(settings.files().certificate());
            assertThat(rotation.check()).isTrue();
            assertThat(Files.readString(settings.files().certificate())).isNotEqualTo(oldCert);
            assertThat(serverPort(server)).isEqualTo(port);
            assertThatThrownBy(() -> admin.resource(example("invalid/07-env-fail-to-pass-overlap.yaml")).inNamespace(ns).create())
                    .hasMessageContaining("denied the request");
        } finally {
            admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).delete();
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    private static int serverPort(AdmissionHttpsServer server) {
        return server.port();
    }

    private static ValidatingWebhookConfiguration configuration(String name, String namespace, int port) {
        return new ValidatingWebhookConfigurationBuilder().withNewMetadata().withName(name).endMetadata()
                .addNewWebhook().withName("validate.crucible.dev").withAdmissionReviewVersions("v1").withSideEffects("None")
                .withFailurePolicy("Fail").withTimeoutSeconds(10)
                .withNewClientConfig().withUrl("https://127.0.0.1:" + port + "/validate").endClientConfig()
                .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", namespace).endNamespaceSelector()
                .addNewRule().withApiGroups("crucible.dev").withApiVersions("v1alpha1").withOperations("CREATE", "UPDATE")
                .withResources("rlenvironments", "rollouts", "rolloutsnapshots", "probemodels").withScope("Namespaced").endRule()
                .endWebhook().build();
    }

    private static GenericKubernetesResource example(String relative) throws Exception {
        Path root = Path.of(System.getProperty("crucible.repo.root", "..")).toAbsolutePath().normalize();
        GenericKubernetesResource r = Serialization.unmarshal(Files.readString(root.resolve("examples").resolve(relative)),
                GenericKubernetesResource.class);
        r.getMetadata().setNamespace(null);
        return r;
    }
}
