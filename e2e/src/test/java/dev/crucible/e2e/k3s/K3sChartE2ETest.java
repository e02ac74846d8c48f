package dev.crucible.e2e.k3s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.marcnuri.helm.Helm;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.FileInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The whole product on a real single-node cluster: k3s in a container, the chart installed with
 * helm-java, the bundled example applied, the rollout run to Succeeded with its reward in status, and
 * a bad manifest refused by the admission webhook. Needs a Docker engine; where there is none it
 * skips and says so (these development machines have none).
 *
 * <p>The images come from {@code images/build-all} (OCI archives in target/images, see {@link Images}).
 */
class K3sChartE2ETest {

    static final String NO_DOCKER = "Docker engine not available: the k3s end-to-end tier needs one to run k3s"
            + " (Testcontainers found none); it runs for real wherever Docker exists";

    private static boolean docker;
    private static K3sContainer k3s;
    private static KubernetesClient client;

    @BeforeAll
    static void startCluster() throws Exception {
        docker = dockerAvailable();
        if (!docker) {
            System.err.println("SKIPPED " + K3sChartE2ETest.class.getSimpleName() + ": " + NO_DOCKER);
            return;
        }
        k3s = new K3sContainer(DockerImageName.parse("rancher/k3s:v1.31.4-k3s1"));
        k3s.start();
        Images.buildAndLoadInto(k3s);
        Path kubeconfig = Files.createTempFile("k3s", ".yaml");
        Files.writeString(kubeconfig, k3s.getKubeConfigYaml());
        new Helm(Images.repoRoot().resolve("helm/crucible")).install().withName("crucible")
                .withNamespace("crucible-system").createNamespace().withKubeConfig(kubeconfig)
                .set("image.pullPolicy", "Never").set("webhook.certManager.enabled", "false")
                .set("operator.replicas", 1).waitReady().withTimeout(300).call();
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml())).build();
    }

    @BeforeEach
    void needsDocker() {
        // Per test, so each shows as skipped with the reason (a class-level assumption reports 0 tests).
        assumeTrue(docker, NO_DOCKER);
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (k3s != null) {
            k3s.stop();
        }
    }

    @Test
    void exampleRolloutRunsToSucceededWithItsReward() throws Exception {
        Path example = Images.repoRoot().resolve("examples/python-bugfix");
        for (String file : new String[] {"environment.yaml", "rollout.yaml"}) {
            try (var in = new FileInputStream(example.resolve(file).toFile())) {
                client.load(in).inNamespace("default").serverSideApply();
            }
        }
        Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
            Rollout r = client.resources(Rollout.class).inNamespace("default").withName("calc-divide-bugfix-honest").get();
            assertThat(r.getStatus()).isNotNull();
            assertThat(String.valueOf(r.getStatus().phase)).isEqualTo("Succeeded");
            assertThat(r.getStatus().reward).isEqualTo(1.0);
        });
    }

    @Test
    void badManifestIsRefusedByTheWebhookNamingTheField() throws Exception {
        Path bad = Images.repoRoot().resolve("examples/invalid/07-env-fail-to-pass-overlap.yaml");
        assertThatThrownBy(() -> {
            try (var in = new FileInputStream(bad.toFile())) {
                client.load(in).inNamespace("default").create();
            }
        }).isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.verifier.passToPass[0]");
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | Error e) {
            return false;
        }
    }
}
