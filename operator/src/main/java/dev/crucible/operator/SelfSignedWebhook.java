package dev.crucible.operator;

import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.operator.webhook.AdmissionHttpsServer;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.CertificateFiles;
import dev.crucible.operator.webhook.CertificateRotation;
import dev.crucible.operator.webhook.SubjectAlternativeNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Start-up hook of the self-signed webhook certificate ({@code crucible.webhook.self-signed.enabled}):
 * wires config into {@link CertificateRotation}, which does the work. Runs on every replica, leader or
 * not, because the Service sends admission calls to any ready replica. Ready only once the webhook is
 * served, so the Service never routes the API server to a replica without a certificate.
 */
@Singleton
@Readiness
public class SelfSignedWebhook implements HealthCheck {

    /** First checks retry quickly: at install the chart's Secret and RBAC may land a moment after the pod. */
    private static final Duration RETRY = Duration.ofSeconds(15);

    @Inject
    CrucibleConfig config;

    @Inject
    KubernetesClient client;

    @Inject
    Vertx vertx;

    @Inject
    AdmissionReviewer reviewer;

    private volatile CertificateRotation rotation;

    void start(@Observes StartupEvent event) {
        CrucibleConfig.SelfSigned c = config.webhook().selfSigned();
        if (!c.enabled()) {
            return;
        }
        BootstrapSettings settings = settings(c, namespace(c));
        CertificateFiles files = settings.files();
        rotation = new CertificateRotation(new CertificateBootstrap(client, settings, Clock.systemUTC()),
                new AdmissionHttpsServer(vertx, reviewer, "0.0.0.0", c.port(), files),
                Duration.ofMinutes(c.checkIntervalMinutes()), RETRY).start();
    }

    void stop(@Observes ShutdownEvent event) {
        if (rotation != null) {
            rotation.close();
        }
    }

    @Override
    public HealthCheckResponse call() {
        CertificateRotation r = rotation;
        boolean up = r == null || r.serving();
        return HealthCheckResponse.named("webhook-certificate").status(up)
                .withData("mode", r == null ? "not self-signed" : "self-signed").build();
    }

    static BootstrapSettings settings(CrucibleConfig.SelfSigned c, String namespace) {
        return new BootstrapSettings(namespace, c.secretName(), c.webhookConfiguration(),
                SubjectAlternativeNames.forService(c.serviceName(), namespace, c.clusterDomain(), c.extraSans().orElse(List.of())),
                Duration.ofDays(c.caValidityDays()), Duration.ofDays(c.validityDays()), Duration.ofDays(c.renewBeforeDays()),
                new CertificateFiles(Path.of(c.certDir())));
    }

    private String namespace(CrucibleConfig.SelfSigned c) {
        String ns = OperatorNamespace.resolve(c.namespace(), client);
        if (ns == null) {
            throw new IllegalStateException("cannot tell the operator's namespace for the webhook certificate: set "
                    + "crucible.webhook.self-signed.namespace or POD_NAMESPACE");
        }
        return ns;
    }
}
