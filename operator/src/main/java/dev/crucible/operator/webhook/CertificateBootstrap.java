package dev.crucible.operator.webhook;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the webhook has a serving certificate when cert-manager is not installed: reads the
 * shared Secret, re-issues when {@link RenewalPolicy} says so, writes the certificate to files for the
 * HTTPS server, and keeps the caBundle of the ValidatingWebhookConfiguration current.
 *
 * <p>Every replica runs it (leader election gates only the reconcilers) and every replica serves the
 * Secret's certificate. Replicas never race to different certificates: a write is a create (409 when
 * another replica created it first) or an update at the read resourceVersion (409 when another replica
 * updated it first); the loser reads the winner's certificate back and serves that.
 */
public final class CertificateBootstrap {

    private static final Logger LOG = LoggerFactory.getLogger(CertificateBootstrap.class);
    private static final int MAX_ATTEMPTS = 5;

    private final KubernetesClient client;
    private final BootstrapSettings settings;
    private final Clock clock;
    private final CaBundlePatcher patcher;

    public CertificateBootstrap(KubernetesClient client, BootstrapSettings settings, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.clock = clock;
        this.patcher = new CaBundlePatcher(client);
    }

    /** What one check did. */
    public record Outcome(WebhookCertificate certificate, RenewalDecision decision, boolean issuedHere, boolean filesChanged,
            boolean caBundlePatched) {
    }

    public Outcome ensure() {
        Instant now = clock.instant();
        RenewalPolicy policy = settings.policy();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Secret stored = client.secrets().inNamespace(settings.namespace()).withName(settings.secretName()).get();
            Map<String, String> data = stored == null ? null : stored.getData();
            RenewalDecision decision = policy.decide(data, now);
            if (decision.action() == RenewalDecision.Action.REUSE) {
                return finish(WebhookCertificate.fromSecretData(data), decision, false);
            }
            if (decision.reason().contains("unreadable") || decision.reason().contains("does not belong")) {
                LOG.warn("Secret {}/{} holds no usable webhook certificate: {}; issuing a new one", settings.namespace(),
                        settings.secretName(), decision.reason());
            } else {
                LOG.info("Issuing a new webhook {} certificate for {}: {}",
                        decision.action() == RenewalDecision.Action.ISSUE_ALL ? "CA and serving" : "serving", settings.names(),
                        decision.reason());
            }
            WebhookCertificate fresh = decision.action() == RenewalDecision.Action.ISSUE_ALL
                    ? SelfSignedIssuer.issueAll(settings.names(), now, settings.caValidity(), settings.servingValidity(), previousCa(data))
                    : SelfSignedIssuer.issueServing(WebhookCertificate.fromSecretData(data), settings.names(), now,
                            settings.servingValidity());
            try {
                store(stored, fresh);
                return finish(fresh, decision, true);
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw explain(e);
                }
                LOG.info("Another replica wrote Secret {}/{} first (attempt {}); serving its certificate", settings.namespace(),
                        settings.secretName(), attempt);
            }
        }
        throw new IllegalStateException("Secret " + settings.namespace() + "/" + settings.secretName() + " kept changing under "
                + MAX_ATTEMPTS + " attempts to store the webhook certificate");
    }

    /**
     * Create when absent, else server-side apply of the data at the resourceVersion read (an apply
     * that names a resourceVersion is refused with 409 when the Secret changed since): both fail
     * with 409 if another replica won. (Only without the chart is the Secret created here; every
     * later write is an apply as {@value CaBundlePatcher#FIELD_MANAGER}.)
     */
    private void store(Secret stored, WebhookCertificate fresh) {
        if (stored == null) {
            client.secrets().inNamespace(settings.namespace()).resource(new SecretBuilder()
                    .withNewMetadata()
                    .withName(settings.secretName())
                    .withNamespace(settings.namespace())
                    .addToLabels("app.kubernetes.io/component", "webhook-certificate")
                    .addToLabels("app.kubernetes.io/created-by", CaBundlePatcher.FIELD_MANAGER)
                    .endMetadata()
                    .withType("Opaque")
                    .withData(fresh.toSecretData())
                    .build()).create();
        } else {
            Secret intent = new SecretBuilder().withNewMetadata()
                    .withName(settings.secretName())
                    .withNamespace(settings.namespace())
                    .withResourceVersion(stored.getMetadata().getResourceVersion())
                    .endMetadata()
                    .withType(stored.getType())
                    .withData(fresh.toSecretData())
                    .build();
            client.secrets().inNamespace(settings.namespace()).resource(intent)
                    .fieldManager(CaBundlePatcher.FIELD_MANAGER).forceConflicts().serverSideApply();
        }
    }

    private Outcome finish(WebhookCertificate cert, RenewalDecision decision, boolean issuedHere) {
        boolean filesChanged = settings.files().write(cert);
        boolean patched = patcher.apply(settings.webhookConfiguration(), cert.caBundle());
        return new Outcome(cert, decision, issuedHere, filesChanged, patched);
    }

    /** The old signing CA stays trusted during a CA rotation, if it can still be read. */
    private static List<X509Certificate> previousCa(Map<String, String> data) {
        try {
            return List.of(WebhookCertificate.fromSecretData(data).signingCa());
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private KubernetesClientException explain(KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN) {
            return new KubernetesClientException("the operator may not write Secret " + settings.namespace() + "/" + settings.secretName()
                    + " (" + e.getMessage() + "). The Helm chart creates it empty and grants get/update on exactly"
                    + " that name; without the chart, create the Secret or grant create on secrets in " + settings.namespace(), e);
        }
        return e;
    }
}
