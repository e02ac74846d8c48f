package dev.crucible.operator.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Decides, from a Secret's data, whether the stored certificate can be served as it is. Pure: anything
 * unreadable is a decision to re-issue with a reason, never an exception, so a corrupt Secret heals
 * itself instead of crash-looping the operator.
 */
public record RenewalPolicy(SubjectAlternativeNames names, Duration renewBefore) {

    public RenewalDecision decide(Map<String, String> secretData, Instant now) {
        if (secretData == null || secretData.isEmpty()) {
            return RenewalDecision.all("no certificate stored yet");
        }
        WebhookCertificate stored;
        X509Certificate ca;
        PrivateKey caKey;
        try {
            stored = WebhookCertificate.fromSecretData(secretData);
            ca = stored.signingCa();
            caKey = stored.signingCaKey();
        } catch (RuntimeException e) {
            return RenewalDecision.all("the stored CA is unreadable (" + e.getMessage() + ")");
        }
        if (!keyMatches(caKey, ca.getPublicKey())) {
            return RenewalDecision.all("the stored CA key does not belong to the stored CA certificate");
        }
        Instant caEnd = ca.getNotAfter().toInstant();
        if (!now.isBefore(caEnd.minus(renewBefore))) {
            return RenewalDecision.all("the CA " + (now.isBefore(caEnd) ? "expires" : "expired") + " at " + caEnd
                    + ", within the renewal window of " + renewBefore.toDays() + " days");
        }
        X509Certificate cert;
        PrivateKey key;
        try {
            cert = stored.servingCertificate();
            key = stored.servingKey();
        } catch (RuntimeException e) {
            return RenewalDecision.serving("the stored serving certificate is unreadable (" + e.getMessage() + ")");
        }
        try {
            cert.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            return RenewalDecision.serving("the serving certificate is not signed by the stored CA");
        }
        if (!keyMatches(key, cert.getPublicKey())) {
            return RenewalDecision.serving("the serving key does not belong to the serving certificate");
        }
        Instant end = cert.getNotAfter().toInstant();
        if (!now.isBefore(end.minus(renewBefore))) {
            return RenewalDecision.serving("the serving certificate " + (now.isBefore(end) ? "expires" : "expired") + " at " + end
                    + ", within the renewal window of " + renewBefore.toDays() + " days");
        }
        if (now.isBefore(cert.getNotBefore().toInstant())) {
            return RenewalDecision.serving("the serving certificate is not valid before " + cert.getNotBefore().toInstant());
        }
        SubjectAlternativeNames actual;
        try {
            actual = SubjectAlternativeNames.of(cert);
        } catch (RuntimeException e) {
            return RenewalDecision.serving("the serving certificate's names are unreadable (" + e.getMessage() + ")");
        }
        if (!actual.equals(names)) {
            return RenewalDecision.serving("the serving certificate names " + actual + "; expected " + names);
        }
        return RenewalDecision.reuse("valid until " + end + ", names " + names);
    }

    /** Sign and verify a probe: works for EC and RSA keys alike, without deriving public keys. */
    static boolean keyMatches(PrivateKey privateKey, PublicKey publicKey) {
        try {
            String algorithm = "EC".equals(publicKey.getAlgorithm()) ? "SHA256withECDSA" : "SHA256with" + publicKey.getAlgorithm();
            byte[] probe = "crucible-key-check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(privateKey);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(publicKey);
            v.update(probe);
            return v.verify(sig);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }
}
