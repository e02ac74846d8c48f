package dev.crucible.operator.webhook;

import static dev.crucible.operator.webhook.SelfSignedIssuerTest.NAMES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BootstrapSettingsTest {

    @Test
    void aWindowAsLongAsTheValidityIsRefusedBecauseEveryCheckWouldReissue() {
        assertThatThrownBy(() -> new BootstrapSettings("ns", "s", "w", NAMES, Duration.ofDays(3650), Duration.ofDays(30),
                Duration.ofDays(30), new CertificateFiles(Path.of("/tmp/x"))))
                .hasMessageContaining("renewal window (30 days) must be shorter than the serving certificate's validity (30 days)");
    }

    @Test
    void extraSansSplitIntoIpAndDnsNames() {
        SubjectAlternativeNames names = SubjectAlternativeNames.forService("svc", "ns", "corp.local",
                List.of("127.0.0.1", " Webhook.Example.com ", "::1", ""));
        assertThat(names.dnsNames()).containsExactlyInAnyOrder("svc.ns.svc", "svc.ns.svc.corp.local", "webhook.example.com");
        assertThat(names.ipAddresses()).containsExactlyInAnyOrder("127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(names.toString()).contains("IP:127.0.0.1");
    }
}
