package dev.crucible.operator.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SelfSignedIssuerTest {

    static final SubjectAlternativeNames NAMES =
            SubjectAlternativeNames.forService("crucible-webhook", "crucible-system", "cluster.local", List.of("127.0.0.1"));
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void servingCertificateChainsToTheCaWithTheServiceNamesAndServerAuth() throws Exception {
        WebhookCertificate cert = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(3650), Duration.ofDays(365), List.of());
        X509Certificate ca = cert.signingCa();
        X509Certificate leaf = cert.servingCertificate();

        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(ca.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(SubjectAlternativeNames.of(leaf).dnsNames())
                .containsExactlyInAnyOrder("crucible-webhook.crucible-system.svc", "crucible-webhook.crucible-system.svc.cluster.local");
        assertThat(SubjectAlternativeNames.of(leaf).ipAddresses()).containsExactly("127.0.0.1");
        assertThat(leaf.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(365)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        assertThat(leaf.getNotBefore().toInstant()).isBefore(NOW);
        assertThat(RenewalPolicy.keyMatches(cert.servingKey(), leaf.getPublicKey())).isTrue();
        assertThat(RenewalPolicy.keyMatches(cert.signingCaKey(), ca.getPublicKey())).isTrue();

        // The JDK's PKIX validator accepts the chain with the CA as the only trust anchor.
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(NOW));
        CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);
    }

    @Test
    void servingCertificateNeverOutlivesItsCa() {
        WebhookCertificate cert = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(100), Duration.ofDays(365), List.of());
        assertThat(cert.servingCertificate().getNotAfter()).isEqualTo(cert.signingCa().getNotAfter());
    }

    @Test
    void newCaKeepsThePreviousOneTrustedUntilItExpires() {
        WebhookCertificate old = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(40), Duration.ofDays(20), List.of());
        WebhookCertificate rotated = SelfSignedIssuer.issueAll(NAMES, NOW.plus(Duration.ofDays(15)), Duration.ofDays(3650),
                Duration.ofDays(365), List.of(old.signingCa()));
        assertThat(rotated.caCertificates()).hasSize(2);
        assertThat(rotated.caCertificates().get(1)).isEqualTo(old.signingCa());
        assertThat(rotated.signingCa()).isNotEqualTo(old.signingCa());

        // Once the old CA has expired, the next serving certificate's bundle drops it.
        WebhookCertificate later = SelfSignedIssuer.issueServing(rotated, NAMES, NOW.plus(Duration.ofDays(60)), Duration.ofDays(365));
        assertThat(later.caCertificates()).containsExactly(rotated.signingCa());
        assertThat(later.caKey()).isEqualTo(rotated.caKey());
    }

    @Test
    void secretDataRoundTripsAndToStringShowsNoKey() {
        WebhookCertificate cert = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(3650), Duration.ofDays(365), List.of());
        assertThat(WebhookCertificate.fromSecretData(cert.toSecretData())).isEqualTo(cert);
        assertThat(cert.toSecretData()).containsOnlyKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
        assertThat(cert.toString()).doesNotContain("PRIVATE").contains("not after");
    }
}
