package dev.crucible.operator.webhook;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The webhook's TLS material as PEM text, as stored in the Secret. {@code caBundle} is what the API
 * server trusts: the signing CA first, then (only during a CA rotation) the previous CA, so replicas
 * still serving a certificate from the old CA are trusted until they pick up the new one.
 */
public record WebhookCertificate(String caBundle, String caKey, String certificate, String key) {

    /** Secret keys; tls.crt / tls.key also make the Secret usable as type kubernetes.io/tls. */
    public static final String CA_CRT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String TLS_CRT = "tls.crt";
    public static final String TLS_KEY = "tls.key";

    /** From a Secret's {@code data} (base64 values); missing keys are refused with their name. */
    public static WebhookCertificate fromSecretData(Map<String, String> data) {
        return new WebhookCertificate(decoded(data, CA_CRT), decoded(data, CA_KEY), decoded(data, TLS_CRT), decoded(data, TLS_KEY));
    }

    /** A Secret's {@code data}: base64 of each PEM text. */
    public Map<String, String> toSecretData() {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(CA_CRT, encoded(caBundle));
        data.put(CA_KEY, encoded(caKey));
        data.put(TLS_CRT, encoded(certificate));
        data.put(TLS_KEY, encoded(key));
        return data;
    }

    /** The CA that signs the serving certificate (the first of the bundle). */
    public X509Certificate signingCa() {
        return PemCodec.certificates(caBundle).get(0);
    }

    public List<X509Certificate> caCertificates() {
        return PemCodec.certificates(caBundle);
    }

    public PrivateKey signingCaKey() {
        return PemCodec.privateKey(caKey);
    }

    public X509Certificate servingCertificate() {
        return PemCodec.certificates(certificate).get(0);
    }

    public PrivateKey servingKey() {
        return PemCodec.privateKey(key);
    }

    /** The private keys never show up in logs or exception messages. */
    @Override
    public String toString() {
        return "WebhookCertificate[serving " + servingCertificate().getSerialNumber().toString(16)
                + ", not after " + servingCertificate().getNotAfter().toInstant() + "]";
    }

    private static String decoded(Map<String, String> data, String key) {
        String value = data == null ? null : data.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("key " + key + " is missing");
        }
        try {
            return new String(Base64.getDecoder().decode(value.trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key " + key + " is not base64: " + e.getMessage(), e);
        }
    }

    private static String encoded(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
    }
}
