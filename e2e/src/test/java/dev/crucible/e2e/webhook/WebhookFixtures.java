package dev.crucible.e2e.webhook;

import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateFiles;
import dev.crucible.operator.webhook.SubjectAlternativeNames;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

/** Settings, webhook configurations and a movable clock shared by the webhook certificate tests. */
final class WebhookFixtures {

    private WebhookFixtures() {
    }

    static BootstrapSettings settings(String namespace, String secret, String webhookConfiguration, Path dir, List<String> extraSans) {
        return new BootstrapSettings(namespace, secret, webhookConfiguration,
                SubjectAlternativeNames.forService("crucible-webhook", namespace, "cluster.local", extraSans),
                Duration.ofDays(3650), Duration.ofDays(365), Duration.ofDays(30), new CertificateFiles(dir));
    }

    /**
     * Two webhooks pointing at a Service, as the chart renders them (no caBundle); they match only
     * ConfigMaps labelled crucible.dev/never-matched, so they never affect other tests.
     */
    static ValidatingWebhookConfiguration inertConfiguration(String name) {
        ValidatingWebhookConfigurationBuilder b = new ValidatingWebhookConfigurationBuilder().withNewMetadata().withName(name).endMetadata();
        for (String hook : List.of("validate.crucible.dev", "second.crucible.dev")) {
            b.addNewWebhook().withName(hook).withAdmissionReviewVersions("v1").withSideEffects("None").withFailurePolicy("Ignore")
                    .withNewClientConfig().withNewService().withName("crucible-webhook").withNamespace("crucible-system")
                    .withPath("/validate").withPort(443).endService().endClientConfig()
                    .withNewObjectSelector().addToMatchLabels("crucible.dev/never-matched", "true").endObjectSelector()
                    .addNewRule().withApiGroups("").withApiVersions("v1").withOperations("CREATE").withResources("configmaps")
                    .withScope("Namespaced").endRule()
                    .endWebhook();
        }
        return b.build();
    }

    /** A clock the test moves forward, to reach renewal windows without waiting a year. */
    static final class MovableClock extends Clock {
        private volatile Instant now = Instant.now();

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
