package dev.crucible.operator.webhook;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the snapshot agents' TLS material ({@link SnapshotAgentPki}) in its two Secrets and the
 * operator's client side of it in files for the agent client. Like {@link CertificateBootstrap}:
 * the chart creates both Secrets empty and grants get/patch on exactly those names; a write is an
 * apply at the resourceVersion read, so of two replicas issuing at once one wins (409 for the
 * other), and the loser reads the winner's certificates back and uses those.
 *
 * @param directory where {@code ca.crt}, {@code client.crt} and {@code client.key} (0600) are written
 */
public record SnapshotAgentCertificates(KubernetesClient client, String namespace, String caSecret, String agentSecret,
                                        Path directory, Duration validity, Duration renewBefore, Clock clock) {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotAgentCertificates.class);

    public Path caFile() {
        return directory.resolve(WebhookCertificate.CA_CRT);
    }

    public Path clientCertFile() {
        return directory.resolve(SnapshotAgentPki.CLIENT_CRT);
    }

    public Path clientKeyFile() {
        return directory.resolve(SnapshotAgentPki.CLIENT_KEY);
    }

    /** Issues when needed, stores, syncs the agent Secret and the client files; returns the operator Secret's data in use. */
    public Map<String, String> ensure() {
        Instant now = clock.instant();
        for (int attempt = 1; attempt <= 5; attempt++) {
            Secret stored = client.secrets().inNamespace(namespace).withName(caSecret).get();
            Map<String, String> data = stored == null ? null : stored.getData();
            String why = SnapshotAgentPki.renewalReason(data, now, renewBefore);
            if (why == null) {
                return finish(data);
            }
            LOG.info("Issuing snapshot agent certificates ({})", why);
            Map<String, String> fresh = SnapshotAgentPki.issue(data, now, validity);
            try {
                apply(caSecret, stored == null ? null : stored.getMetadata().getResourceVersion(), fresh);
                return finish(fresh);
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
                LOG.info("Another replica stored snapshot agent certificates first (attempt {}); using those", attempt);
            }
        }
        throw new IllegalStateException("Secret " + namespace + "/" + caSecret + " kept changing while storing agent certificates");
    }

    private Map<String, String> finish(Map<String, String> data) {
        Map<String, String> agent = SnapshotAgentPki.agentData(data);
        Secret current = client.secrets().inNamespace(namespace).withName(agentSecret).get();
        if (current == null || !agent.equals(current.getData())) {
            apply(agentSecret, null, agent);
        }
        writeFiles(data);
        return data;
    }

    private void apply(String name, String resourceVersion, Map<String, String> data) {
        Secret intent = new SecretBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .withResourceVersion(resourceVersion).endMetadata().withType("Opaque").withData(data).build();
        client.secrets().inNamespace(namespace).resource(intent).fieldManager(CaBundlePatcher.FIELD_MANAGER).forceConflicts()
                .serverSideApply();
    }

    private void writeFiles(Map<String, String> data) {
        try {
            Files.createDirectories(directory);
            write(caFile(), SnapshotAgentPki.decode(data.get(WebhookCertificate.CA_CRT)));
            write(clientCertFile(), SnapshotAgentPki.decode(data.get(SnapshotAgentPki.CLIENT_CRT)));
            write(clientKeyFile(), SnapshotAgentPki.decode(data.get(SnapshotAgentPki.CLIENT_KEY)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the snapshot agent client files to " + directory, e);
        }
    }

    private static void write(Path target, String content) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
