package dev.crucible.operator.webhook;

import static dev.crucible.operator.webhook.SelfSignedIssuerTest.NAMES;
import static dev.crucible.operator.webhook.SelfSignedIssuerTest.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.operator.webhook.RenewalDecision.Action;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RenewalPolicyTest {

    private final RenewalPolicy policy = new RenewalPolicy(NAMES, Duration.ofDays(30));
    private final WebhookCertificate issued = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(3650), Duration.ofDays(365), List.of());

    @Test
    void freshCertificateIsReused() {
        RenewalDecision d = policy.decide(issued.toSecretData(), NOW.plus(Duration.ofDays(1)));
        assertThat(d.action()).isEqualTo(Action.REUSE);
        assertThat(d.reason()).contains("valid until");
    }

    @Test
    void noSecretOrAnEmptyOneIssuesEverything() {
        assertThat(policy.decide(null, NOW).action()).isEqualTo(Action.ISSUE_ALL);
        RenewalDecision empty = policy.decide(Map.of(), NOW);
        assertThat(empty.action()).isEqualTo(Action.ISSUE_ALL);
        assertThat(empty.reason()).isEqualTo("no certificate stored yet");
    }

    @Test
    void servingCertificateWithinTheWindowIsRenewedFromTheSameCa() {
        RenewalDecision justOutside = policy.decide(issued.toSecretData(), NOW.plus(Duration.ofDays(334)));
        assertThat(justOutside.action()).isEqualTo(Action.REUSE);
        RenewalDecision inside = policy.decide(issued.toSecretData(), NOW.plus(Duration.ofDays(336)));
        assertThat(inside.action()).isEqualTo(Action.ISSUE_SERVING);
        assertThat(inside.reason()).contains("expires at").contains("renewal window of 30 days");
    }

    @Test
    void expiredServingCertificateIsRenewed() {
        RenewalDecision d = policy.decide(issued.toSecretData(), NOW.plus(Duration.ofDays(400)));
        assertThat(d.action()).isEqualTo(Action.ISSUE_SERVING);
        assertThat(d.reason()).contains("expired at");
    }

    @Test
    void caWithinTheWindowReissuesEverything() {
        WebhookCertificate shortCa = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(60), Duration.ofDays(10), List.of());
        RenewalDecision d = policy.decide(shortCa.toSecretData(), NOW.plus(Duration.ofDays(31)));
        assertThat(d.action()).isEqualTo(Action.ISSUE_ALL);
        assertThat(d.reason()).startsWith("the CA expires at");
    }

    @Test
    void otherNamesAreReissued() {
        RenewalPolicy moved = new RenewalPolicy(
                SubjectAlternativeNames.forService("crucible-webhook", "other-namespace", "cluster.local", List.of()), Duration.ofDays(30));
        RenewalDecision d = moved.decide(issued.toSecretData(), NOW);
        assertThat(d.action()).isEqualTo(Action.ISSUE_SERVING);
        assertThat(d.reason()).contains("crucible-webhook.crucible-system.svc").contains("expected")
                .contains("crucible-webhook.other-namespace.svc");
        // An extra SAN the configuration no longer asks for is a mismatch too.
        RenewalPolicy noIp = new RenewalPolicy(
                SubjectAlternativeNames.forService("crucible-webhook", "crucible-system", "cluster.local", List.of()), Duration.ofDays(30));
        assertThat(noIp.decide(issued.toSecretData(), NOW).action()).isEqualTo(Action.ISSUE_SERVING);
    }

    @Test
    void corruptSecretsAreReissuedWithTheReasonNeverThrown() {
        Map<String, String> garbageCa = new HashMap<>(issued.toSecretData());
        garbageCa.put("ca.crt", b64("-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n"));
        RenewalDecision d1 = policy.decide(garbageCa, NOW);
        assertThat(d1.action()).isEqualTo(Action.ISSUE_ALL);
        assertThat(d1.reason()).startsWith("the stored CA is unreadable");

        Map<String, String> notBase64 = new HashMap<>(issued.toSecretData());
        notBase64.put("ca.key", "%%%");
        assertThat(policy.decide(notBase64, NOW).reason()).contains("ca.key is not base64");

        Map<String, String> missingKey = new HashMap<>(issued.toSecretData());
        missingKey.remove("tls.key");
        RenewalDecision d3 = policy.decide(missingKey, NOW);
        assertThat(d3.action()).isEqualTo(Action.ISSUE_ALL);
        assertThat(d3.reason()).contains("tls.key is missing");

        Map<String, String> garbageLeaf = new HashMap<>(issued.toSecretData());
        garbageLeaf.put("tls.crt", b64("hello"));
        RenewalDecision d4 = policy.decide(garbageLeaf, NOW);
        assertThat(d4.action()).isEqualTo(Action.ISSUE_SERVING);
        assertThat(d4.reason()).contains("serving certificate is unreadable");

        Map<String, String> keyIsACert = new HashMap<>(issued.toSecretData());
        keyIsACert.put("ca.key", issued.toSecretData().get("ca.crt"));
        assertThat(policy.decide(keyIsACert, NOW).action()).isEqualTo(Action.ISSUE_ALL);
    }

    @Test
    void mixedUpCertificatesAreNotServed() {
        WebhookCertificate other = SelfSignedIssuer.issueAll(NAMES, NOW, Duration.ofDays(3650), Duration.ofDays(365), List.of());

        Map<String, String> foreignLeaf = new HashMap<>(issued.toSecretData());
        foreignLeaf.put("tls.crt", other.toSecretData().get("tls.crt"));
        foreignLeaf.put("tls.key", other.toSecretData().get("tls.key"));
        RenewalDecision d1 = policy.decide(foreignLeaf, NOW);
        assertThat(d1.action()).isEqualTo(Action.ISSUE_SERVING);
        assertThat(d1.reason()).isEqualTo("the serving certificate is not signed by the stored CA");

        Map<String, String> wrongKey = new HashMap<>(issued.toSecretData());
        wrongKey.put("tls.key", other.toSecretData().get("tls.key"));
        assertThat(policy.decide(wrongKey, NOW).reason()).isEqualTo("the serving key does not belong to the serving certificate");

        Map<String, String> wrongCaKey = new HashMap<>(issued.toSecretData());
        wrongCaKey.put("ca.key", other.toSecretData().get("ca.key"));
        RenewalDecision d3 = policy.decide(wrongCaKey, NOW);
        assertThat(d3.action()).isEqualTo(Action.ISSUE_ALL);
        assertThat(d3.reason()).contains("CA key does not belong");
    }

    @Test
    void renewedCertificateIsReusedAgain() {
        WebhookCertificate renewed = SelfSignedIssuer.issueServing(issued, NAMES, NOW.plus(Duration.ofDays(336)), Duration.ofDays(365));
        assertThat(policy.decide(renewed.toSecretData(), NOW.plus(Duration.ofDays(337))).action()).isEqualTo(Action.REUSE);
        assertThat(renewed.caBundle()).isEqualTo(issued.caBundle());
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
