package dev.crucible.operator.webhook;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The snapshot agents' mutual TLS material, issued with the webhook's certificate machinery
 * ({@link SelfSignedIssuer}) but from a CA of its own (a webhook CA the API server trusts never signs
 * agent clients, and the reverse): one serving certificate every agent presents (DNS name
 * {@value #AGENT_NAME}: agents are reached by pod IP, which no certificate can name in advance), one
 * client certificate for the operator, and the HMAC key that seals image manifests, kept across
 * re-issues so older images still verify. Pure: Secret data in, Secret data out.
 *
 * <p>Operator-only Secret ({@link #CA_KEYS}): ca.crt, ca.key, tls.crt, tls.key, client.crt, client.key,
 * hmac.key. Agent Secret ({@link #AGENT_KEYS}): ca.crt, tls.crt, tls.key, hmac.key — never the CA key
 * or the operator's client key.
 */
public final class SnapshotAgentPki {

    public static final String AGENT_NAME = "crucible-snapshot-agent";
    public static final String CLIENT_NAME = "crucible-operator";
    public static final String CLIENT_CRT = "client.crt";
    public static final String CLIENT_KEY = "client.key";
    public static final String HMAC_KEY = "hmac.key";
    public static final List<String> CA_KEYS = List.of(WebhookCertificate.CA_CRT, WebhookCertificate.CA_KEY,
            WebhookCertificate.TLS_CRT, WebhookCertificate.TLS_KEY, CLIENT_CRT, CLIENT_KEY, HMAC_KEY);
    public static final List<String> AGENT_KEYS = List.of(WebhookCertificate.CA_CRT, WebhookCertificate.TLS_CRT,
            WebhookCertificate.TLS_KEY, HMAC_KEY);

    private SnapshotAgentPki() {
    }

    /** Null when {@code data} (the operator Secret's) is complete and nothing expires within {@code renewBefore}; else why not. */
    public static String renewalReason(Map<String, String> data, Instant now, Duration renewBefore) {
        if (data == null || !data.keySet().containsAll(CA_KEYS)) {
            return "no agent certificates yet";
        }
        try {
            WebhookCertificate serving = WebhookCertificate.fromSecretData(data);
            Instant horizon = now.plus(renewBefore);
            X509Certificate client = PemCodec.certificates(decode(data.get(CLIENT_CRT))).get(0);
            for (X509Certificate c : List.of(serving.signingCa(), serving.servingCertificate(), client)) {
                if (c.getNotAfter().toInstant().isBefore(horizon)) {
                    return c.getSubjectX500Principal().getName() + " expires at " + c.getNotAfter().toInstant();
                }
            }
            PemCodec.privateKey(decode(data.get(CLIENT_KEY)));
            if (!serving.servingCertificate().getSubjectAlternativeNames().toString().contains(AGENT_NAME)) {
                return "serving certificate does not name " + AGENT_NAME;
            }
            return null;
        } catch (RuntimeException | java.security.cert.CertificateParsingException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    /** A fresh CA, agent serving and operator client certificate; the HMAC key of {@code previous} is kept, else a new one. */
    public static Map<String, String> issue(Map<String, String> previous, Instant now, Duration validity) {
        WebhookCertificate agent = SelfSignedIssuer.issueAll(new SubjectAlternativeNames(Set.of(AGENT_NAME), Set.of()), now,
                validity, validity, List.of());
        WebhookCertificate client = SelfSignedIssuer.issueClient(agent, CLIENT_NAME, now, validity);
        Map<String, String> data = new LinkedHashMap<>(agent.toSecretData());
        data.put(CLIENT_CRT, encode(client.certificate()));
        data.put(CLIENT_KEY, encode(client.key()));
        String hmac = previous == null ? null : previous.get(HMAC_KEY);
        if (hmac == null || hmac.isBlank()) {
            byte[] k = new byte[32];
            new SecureRandom().nextBytes(k);
            hmac = encode(HexFormat.of().formatHex(k));
        }
        data.put(HMAC_KEY, hmac);
        return data;
    }

    /** What the agents' Secret holds, taken from the operator Secret's data. */
    public static Map<String, String> agentData(Map<String, String> caData) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : AGENT_KEYS) {
            out.put(k, caData.get(k));
        }
        return out;
    }

    public static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64.trim()), StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
