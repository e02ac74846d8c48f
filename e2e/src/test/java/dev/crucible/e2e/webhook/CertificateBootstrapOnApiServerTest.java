package dev.crucible.e2e.webhook;

import static dev.crucible.e2e.webhook.WebhookFixtures.inertConfiguration;
import static dev.crucible.e2e.webhook.WebhookFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.e2e.SharedCluster;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.RenewalDecision.Action;
import dev.crucible.operator.webhook.WebhookCertificate;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrap against the real kube-apiserver: it creates the Secret and sets the caBundle of every
 * webhook by server-side apply (touching nothing else); a second replica reuses the Secret; replicas
 * racing on an absent Secret end up serving one certificate; rotation and a corrupt Secret re-issue.
 */
class CertificateBootstrapOnApiServerTest {

    @TempDir
    Path replicaA;

    @TempDir
    Path replicaB;

    @Test
    void createsTheSecretPatchesOnlyTheCaBundleAndASecondReplicaReusesIt() throws Exception {
        KubernetesClient admin = SharedCluster.client();
        String ns = SharedCluster.namespace("webhook-cert");
        String vwcName = ns + "-vwc";
        admin.resource(inertConfiguration(vwcName)).create();
        try (KubernetesClient clientA = SharedCluster.cluster().newClient(); KubernetesClient clientB = SharedCluster.cluster().newClient()) {
            WebhookFixtures.MovableClock clock = new WebhookFixtures.MovableClock();
            BootstrapSettings a = settings(ns, "crucible-webhook-selfsigned", vwcName, replicaA, List.of());
            CertificateBootstrap.Outcome first = new CertificateBootstrap(clientA, a, clock).ensure();
            assertThat(first.issuedHere()).isTrue();
            assertThat(first.decision().action()).isEqualTo(Action.ISSUE_ALL);
            assertThat(first.filesChanged()).isTrue();
            assertThat(first.caBundlePatched()).isTrue();

            Secret secret = admin.secrets().inNamespace(ns).withName("crucible-webhook-selfsigned").get();
            assertThat(WebhookCertificate.fromSecretData(secret.getData())).isEqualTo(first.certificate());
            assertThat(Files.readString(a.files().certificate())).isEqualTo(first.certificate().certificate());
            assertThat(Files.readString(a.files().key())).isEqualTo(first.certificate().key());

            ValidatingWebhookConfiguration vwc = admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).get();
            for (ValidatingWebhook w : vwc.getWebhooks()) {
                assertThat(new String(Base64.getDecoder().decode(w.getClientConfig().getCaBundle()), StandardCharsets.UTF_8))
                        .isEqualTo(first.certificate().caBundle());
                // Everything else is as created: the apply named only the caBundle.
                assertThat(w.getClientConfig().getService().getName()).isEqualTo("crucible-webhook");
                assertThat(w.getRules()).hasSize(1);
                assertThat(w.getFailurePolicy()).isEqualTo("Ignore");
            }
            ManagedFieldsEntry ours = vwc.getMetadata().getManagedFields().stream()
                    .filter(m -> m.getManager().equals("crucible-operator")).findFirst().orElseThrow();
            assertThat(ours.getOperation()).isEqualTo("Apply");
            String owned = ours.getFieldsV1().getAdditionalProperties().toString();
            assertThat(owned).contains("caBundle").doesNotContain("rules").doesNotContain("failurePolicy").doesNotContain("service");

            // A GitOps tool re-applies its manifest (no caBundle) with server-side apply: the caBundle stays.
            admin.resource(inertConfiguration(vwcName)).fieldManager("gitops").forceConflicts().serverSideApply();
            assertThat(admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).get()
                    .getWebhooks()).allSatisfy(w -> assertThat(w.getClientConfig().getCaBundle()).isNotBlank());

            // The second replica: same Secret, nothing written, same certificate served.
            String version = secret.getMetadata().getResourceVersion();
            BootstrapSettings b = a.withFiles(replicaB);
            CertificateBootstrap.Outcome second = new CertificateBootstrap(clientB, b, clock).ensure();
            assertThat(second.issuedHere()).isFalse();
            assertThat(second.decision().action()).isEqualTo(Action.REUSE);
            assertThat(second.caBundlePatched()).isFalse();
            assertThat(second.certificate()).isEqualTo(first.certificate());
            assertThat(Files.readString(b.files().certificate())).isEqualTo(first.certificate().certificate());
            assertThat(admin.secrets().inNamespace(ns).withName("crucible-webhook-selfsigned").get().getMetadata().getResourceVersion())
                    .isEqualTo(version);

            // Near expiry: replica B renews the serving certificate from the same CA (caBundle unchanged) ...
            clock.advance(Duration.ofDays(340));
            CertificateBootstrap.Outcome renewed = new CertificateBootstrap(clientB, b, clock).ensure();
            assertThat(renewed.decision().action()).isEqualTo(Action.ISSUE_SERVING);
            assertThat(renewed.certificate().servingCertificate().getSerialNumber())
                    .isNotEqualTo(first.certificate().servingCertificate().getSerialNumber());
            assertThat(renewed.certificate().caBundle()).isEqualTo(first.certificate().caBundle());
            assertThat(renewed.caBundlePatched()).isFalse();
            // The renewal is a server-side apply: the Secret's data belongs to the operator's field manager.
            Secret afterRenewal = admin.secrets().inNamespace(ns).withName("crucible-webhook-selfsigned").get();
            assertThat(afterRenewal.getMetadata().getManagedFields()).anySatisfy(f -> {
                assertThat(f.getManager()).isEqualTo("crucible-operator");
                assertThat(f.getOperation()).isEqualTo("Apply");
                assertThat(f.getFieldsV1().getAdditionalProperties()).containsKey("f:data");
            });
            // ... and replica A picks it up at its next check: its files change, so it reloads its server.
            CertificateBootstrap.Outcome pickedUp = new CertificateBootstrap(clientA, a, clock).ensure();
            assertThat(pickedUp.issuedHere()).isFalse();
            assertThat(pickedUp.filesChanged()).isTrue();
            assertThat(Files.readString(a.files().certificate())).isEqualTo(renewed.certificate().certificate());
        } finally {
            admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).delete();
        }
    }

    @Test
    void replicasRacingOnAnAbsentSecretServeOneCertificate() throws Exception {
        String ns = SharedCluster.namespace("webhook-race");
        String vwcName = ns + "-vwc";
        SharedCluster.client().resource(inertConfiguration(vwcName)).create();
        int replicas = 3;
        List<KubernetesClient> clients = new ArrayList<>();
        try {
            CyclicBarrier start = new CyclicBarrier(replicas);
            List<CompletableFuture<CertificateBootstrap.Outcome>> runs = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                KubernetesClient c = SharedCluster.cluster().newClient();
                clients.add(c);
                BootstrapSettings s = settings(ns, "shared", vwcName, Files.createTempDirectory(replicaA, "r" + i), List.of());
                runs.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return new CertificateBootstrap(c, s, java.time.Clock.systemUTC()).ensure();
                }));
            }
            List<CertificateBootstrap.Outcome> outcomes = runs.stream().map(CompletableFuture::join).toList();
            WebhookCertificate stored = WebhookCertificate.fromSecretData(
                    SharedCluster.client().secrets().inNamespace(ns).withName("shared").get().getData());
            assertThat(outcomes).allSatisfy(o -> assertThat(o.certificate()).isEqualTo(stored));
            assertThat(outcomes).filteredOn(CertificateBootstrap.Outcome::issuedHere).hasSize(1);
        } finally {
            clients.forEach(KubernetesClient::close);
            SharedCluster.client().admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).delete();
        }
    }

    @Test
    void corruptSecretAndCaNearExpiryAreReissuedAndTheOldCaStaysTrustedDuringTheHandover() {
        KubernetesClient admin = SharedCluster.client();
        String ns = SharedCluster.namespace("webhook-corrupt");
        String vwcName = ns + "-vwc";
        admin.resource(inertConfiguration(vwcName)).create();
        try {
            // What an operator finds after someone edited the Secret by hand.
            admin.secrets().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                    .withNewMetadata().withName("hand-edited").endMetadata()
                    .addToStringData("ca.crt", "-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n")
                    .addToStringData("tls.crt", "oops").build()).create();
            WebhookFixtures.MovableClock clock = new WebhookFixtures.MovableClock();
            BootstrapSettings s = settings(ns, "hand-edited", vwcName, replicaA, List.of());
            CertificateBootstrap.Outcome healed = new CertificateBootstrap(admin, s, clock).ensure();
            assertThat(healed.issuedHere()).isTrue();
            assertThat(healed.decision().action()).isEqualTo(Action.ISSUE_ALL);
            assertThat(healed.decision().reason()).startsWith("the stored CA is unreadable");
            assertThat(new CertificateBootstrap(admin, s, clock).ensure().decision().action()).isEqualTo(Action.REUSE);

            // CA rotation: ten years on, the CA is in its window; the new bundle carries new and old CA.
            clock.advance(Duration.ofDays(3650 - 20));
            CertificateBootstrap.Outcome rotated = new CertificateBootstrap(admin, s, clock).ensure();
            assertThat(rotated.decision().action()).isEqualTo(Action.ISSUE_ALL);
            assertThat(rotated.decision().reason()).startsWith("the CA expires at");
            assertThat(rotated.certificate().caCertificates()).hasSize(2)
                    .element(1).isEqualTo(healed.certificate().signingCa());
            assertThat(rotated.caBundlePatched()).isTrue();
            String bundle = admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).get()
                    .getWebhooks().get(0).getClientConfig().getCaBundle();
            assertThat(new String(Base64.getDecoder().decode(bundle), StandardCharsets.UTF_8)).isEqualTo(rotated.certificate().caBundle());
        } finally {
            admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwcName).delete();
        }
    }
}
