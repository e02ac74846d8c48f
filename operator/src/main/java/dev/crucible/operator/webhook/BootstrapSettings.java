package dev.crucible.operator.webhook;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the self-signed webhook certificate lives and how long it lasts.
 *
 * @param namespace            namespace of the Secret (the operator's own)
 * @param secretName           the Secret holding CA and serving certificate, shared by every replica
 * @param webhookConfiguration the ValidatingWebhookConfiguration whose caBundle is kept current
 * @param names                the serving certificate's subject alternative names
 * @param caValidity           lifetime of a new CA
 * @param servingValidity      lifetime of a new serving certificate (never beyond the CA's)
 * @param renewBefore          re-issue when this close to expiry
 * @param files                where the served certificate and key are written
 */
public record BootstrapSettings(String namespace, String secretName, String webhookConfiguration,
        SubjectAlternativeNames names, Duration caValidity, Duration servingValidity, Duration renewBefore,
        CertificateFiles files) {

    public BootstrapSettings {
        if (!renewBefore.isNegative() && renewBefore.compareTo(servingValidity) >= 0) {
            throw new IllegalArgumentException("the renewal window (" + renewBefore.toDays() + " days) must be shorter than the"
                    + " serving certificate's validity (" + servingValidity.toDays() + " days), or every check would re-issue");
        }
        if (renewBefore.compareTo(caValidity) >= 0) {
            throw new IllegalArgumentException("the renewal window (" + renewBefore.toDays() + " days) must be shorter than the"
                    + " CA's validity (" + caValidity.toDays() + " days)");
        }
    }

    public RenewalPolicy policy() {
        return new RenewalPolicy(names, renewBefore);
    }

    public BootstrapSettings withFiles(Path directory) {
        return new BootstrapSettings(namespace, secretName, webhookConfiguration, names, caValidity, servingValidity, renewBefore,
                new CertificateFiles(directory));
    }
}
