package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.WarmPoolLabels;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Warm pools on a real kubelet (issue 39): the bundled example's environment with a pool of one (the node of
 * this tier holds one rollout pod at a time). An interactive Rollout claims the ready pool pod; the kubelet
 * rewrites the claim file of the pod's downward-API volume, the sidecar takes the claim and listens, and the
 * test, as the trainer, resets, fixes divide() with the example's honest agent and verifies: Succeeded, reward 1.
 * The pool refills; a hacker Rollout claims the new pod (never the first one) and ends Hacked.
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class WarmPoolRealNodeTest {

    private static final String NS = "crucible-warm-pool-test";
    private static final Path EXAMPLE = RealNodeCluster.repoRoot().resolve("examples/python-bugfix");
    private static KubernetesClient client;
    /** The uid of the pod each Rollout ran on. */
    private static final java.util.Map<String, String> CLAIMED = new java.util.concurrent.ConcurrentHashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        client = RealNodeCluster.client(RealNodeCluster.up());
        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        String yaml = Files.readString(EXAMPLE.resolve("environment.yaml"))
                + "  warmPool: {min: 1, max: 1, ttlSeconds: 1800, refillPerSecond: 1}\n";
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class)).inNamespace(NS).create();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(WarmPoolRealNodeTest.class);
    }

    @Test
    void theExampleClaimsAWarmPodAndSucceedsAHackerFromTheSamePoolIsHackedOnAnotherPod() throws Exception {
        Pod first = awaitFreePoolPod();
        Rollout honest = run("warm-honest", "sh /agents/honest.sh");
        assertThat(honest.getStatus().start).as("the honest Rollout's start").isEqualTo("Warm");
        assertThat(honest.getStatus().phase).as(Serialization.asJson(honest.getStatus())).isEqualTo(PhaseName.Succeeded);
        assertThat(honest.getStatus().reward).isEqualTo(1.0);

        Pod second = awaitFreePoolPod();
        assertThat(second.getMetadata().getUid()).as("the refilled pool pod").isNotEqualTo(first.getMetadata().getUid());
        Rollout hacker = run("warm-hacker", "sh /agents/hacker.sh");
        assertThat(hacker.getStatus().start).isEqualTo("Warm");
        assertThat(hacker.getStatus().phase).as(Serialization.asJson(hacker.getStatus())).isEqualTo(PhaseName.Hacked);
        assertThat(hacker.getStatus().reward).isEqualTo(0.0);
        assertThat(CLAIMED.get("warm-honest")).as("the honest Rollout's pod").isEqualTo(first.getMetadata().getUid());
        assertThat(CLAIMED.get("warm-hacker")).as("the hacker's pod: the refilled one, never the first")
                .isEqualTo(second.getMetadata().getUid()).isNotEqualTo(first.getMetadata().getUid());
    }

    /**
     * The pool's unclaimed pod once it is claimable: its containers started (the interactive agent container ends at
     * once) and its sidecar started, i.e. setup ran ahead of the claim. A Rollout made before that starts cold, and on
     * this one-pod node waits for the room the pool pod holds.
     */
    private static Pod awaitFreePoolPod() {
        return Awaitility.await("a ready pool pod").atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            List<Pod> free = client.pods().inNamespace(NS).withLabel(WarmPoolLabels.STATE, WarmPoolLabels.FREE).list().getItems().stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
                            && "Running".equals(p.getStatus().getPhase()) && p.getStatus().getContainerStatuses() != null
                            && p.getStatus().getContainerStatuses().stream().allMatch(c -> c.getState().getWaiting() == null)
                            // claimable: its sidecar started (the startup probe saw the setup run ahead of the claim)
                            && p.getStatus().getContainerStatuses().stream().anyMatch(c -> RolloutLabels.VERIFIER_CONTAINER.equals(c.getName())
                                    && Boolean.TRUE.equals(c.getStarted())))
                    .toList();
            return free.isEmpty() ? null : free.get(0);
        }, p -> p != null);
    }

    /** Creates an interactive Rollout of the example and drives it as a trainer: reset, one bash step, verify. */
    private static Rollout run(String name, String command) throws Exception {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata: {name: %s}
                spec:
                  environmentRef: {name: calc-divide-bugfix}
                  mode: interactive
                  limits: {maxDurationSeconds: 600}
                """.formatted(name);
        long t0 = System.nanoTime();
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, Rollout.class)).inNamespace(NS).create();
        Awaitility.await(name + " Running").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> phase(name) == PhaseName.Running || isTerminal(phase(name)));
        System.err.printf("%s: create to Running %d ms%n", name, (System.nanoTime() - t0) / 1_000_000);
        Pod pod = client.pods().inNamespace(NS).withLabel("crucible.dev/rollout", name).list().getItems().get(0);
        CLAIMED.put(name, pod.getMetadata().getUid());
        String token = new String(Base64.getDecoder().decode(client.secrets().inNamespace(NS).withName("crucible-env-api").get()
                .getData().get("token")), StandardCharsets.UTF_8).strip();
        String base = "http://" + pod.getStatus().getPodIP() + ":8080";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThat(post(http, base + "/v1/reset", "{}", token)).as("reset").isEqualTo(200);
        String step = "{\"tool\":\"bash\",\"args\":{\"command\":\"" + command + "\"}}";
        assertThat(post(http, base + "/v1/step", step, token)).as("step").isEqualTo(200);
        assertThat(post(http, base + "/v1/verify", "{}", token)).as("verify").isEqualTo(200);
        Awaitility.await(name + " finished").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
                .until(() -> isTerminal(phase(name)));
        return client.resources(Rollout.class).inNamespace(NS).withName(name).get();
    }

    private static PhaseName phase(String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    private static boolean isTerminal(PhaseName p) {
        return p != null && p.isTerminal();
    }

    private static int post(HttpClient http, String url, String body, String token) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(3))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
