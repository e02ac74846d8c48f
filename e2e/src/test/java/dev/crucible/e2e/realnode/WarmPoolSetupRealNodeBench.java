package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.WarmPoolLabels;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real-node figure of issue 39: claim → agent running, warm against cold, for the bundled example with a setup
 * that takes {@value #SETUP_SECONDS} s ({@code sleep}: a stand-in for a pip install of that length, which this
 * offline node cannot download). "Agent running" is the trainer's first {@code /v1/reset} answered: from then on
 * its steps run. Cold: a Rollout of the environment without a pool (its pod created for it; setup runs at that
 * reset). Warm: the same environment with {@code warmPool: {min: 1, max: 1}}, once its pod's setup ran ahead
 * (its sidecar started). The node holds one rollout pod, so the rounds run one after another and the cold ones
 * before the pool exists. The first round of each ends with the honest agent: Succeeded, reward 1. Not a CI
 * class (its name does not end in Test): {@code ./mvnw -pl e2e test -Dtest=WarmPoolSetupRealNodeBench}
 * ({@code CRUCIBLE_BENCH_ROUNDS}, default 3). Prints one line: warm and cold p50/max and their ratio.
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class WarmPoolSetupRealNodeBench {
    static final int SETUP_SECONDS = 30;
    private static final String NS = "crucible-warm-setup-bench";
    private static final String ENV = "calc-setup30";
    private KubernetesClient client;

    @Test
    void warmAgainstColdWithAThirtySecondSetup() throws Exception {
        client = RealNodeCluster.client(RealNodeCluster.up());
        int rounds = Integer.parseInt(System.getenv().getOrDefault("CRUCIBLE_BENCH_ROUNDS", "3"));
        try {
            if (client.namespaces().withName(NS).get() != null) {
                client.namespaces().withName(NS).delete();
                Awaitility.await().atMost(Duration.ofMinutes(3)).until(() -> client.namespaces().withName(NS).get() == null);
            }
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
            String yaml = Files.readString(RealNodeCluster.repoRoot().resolve("examples/python-bugfix/environment.yaml"))
                    .replace("name: calc-divide-bugfix", "name: " + ENV)
                    .replace("python3 -m pip --version >/dev/null 2>&1 || true",
                            "sleep " + SETUP_SECONDS + "; python3 -m pip --version >/dev/null 2>&1 || true");
            client.resource(client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class)).inNamespace(NS).create();

            List<Long> cold = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                cold.add(round("cold-" + i, i == 0, "warmPool: never", "Cold"));
            }
            client.resources(RLEnvironment.class).inNamespace(NS).withName(ENV).edit(e -> {
                e.getSpec().warmPool = new dev.crucible.api.v1alpha1.environment.WarmPoolSpec();
                e.getSpec().warmPool.min = 1;
                e.getSpec().warmPool.max = 1;
                e.getSpec().warmPool.ttlSeconds = 1800;
                e.getSpec().warmPool.refillPerSecond = 1;
                return e;
            });
            List<Long> warm = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                long ready = System.nanoTime();
                awaitSetUpPoolPod();
                System.err.printf("warm-%d: pool pod set up after %d ms%n", i, (System.nanoTime() - ready) / 1_000_000);
                warm.add(round("warm-" + i, i == 0, "", "Warm"));
            }
            long wp = p50(warm);
            long cp = p50(cold);
            System.out.printf("real_node setup_s=%d rounds=%d claim_to_agent_running_p50_ms=%d max_ms=%d cold_p50_ms=%d cold_max_ms=%d"
                            + " warm_cold_ratio_p50=%.3f%n", SETUP_SECONDS, rounds, wp, max(warm), cp, max(cold), (double) wp / cp);
        } finally {
            client.namespaces().withName(NS).delete();
            client.close();
            RealNodeCluster.downIfAsked(WarmPoolSetupRealNodeBench.class);
        }
    }

    /** One Rollout from its create request to its first reset answered; the first of each kind also runs to its reward. */
    private long round(String name, boolean toTheEnd, String extraSpec, String start) throws Exception {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata: {name: %s}
                spec:
                  environmentRef: {name: %s}
                  mode: interactive
                  limits: {maxDurationSeconds: 900}
                %s
                """.formatted(name, ENV, extraSpec.indent(2));
        long t0 = System.nanoTime();
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, Rollout.class)).inNamespace(NS).create();
        Awaitility.await(name + " Running").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> phase(name) == PhaseName.Running || phase(name) != null && phase(name).isTerminal());
        long running = System.nanoTime();
        Rollout r = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
        assertThat(r.getStatus().start).as(name + "'s start").isEqualTo(start);
        Pod pod = client.pods().inNamespace(NS).withName(r.getStatus().members.get(0).pod).get();
        String token = new String(Base64.getDecoder().decode(client.secrets().inNamespace(NS).withName("crucible-env-api").get()
                .getData().get("token")), StandardCharsets.UTF_8).strip();
        String base = "http://" + pod.getStatus().getPodIP() + ":8080";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThat(post(http, base + "/v1/reset", "{}", token)).as("reset").isEqualTo(200);
        long agent = System.nanoTime();
        long ms = (agent - t0) / 1_000_000;
        System.err.printf("%s (%s): create to Running %d ms, to first reset answered %d ms%n", name, start, (running - t0) / 1_000_000, ms);
        if (toTheEnd) {
            String step = "{\"tool\":\"bash\",\"args\":{\"command\":\"sh /agents/honest.sh\"}}";
            assertThat(post(http, base + "/v1/step", step, token)).as("step").isEqualTo(200);
            assertThat(post(http, base + "/v1/verify", "{}", token)).as("verify").isEqualTo(200);
            Awaitility.await(name + " finished").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> phase(name) != null && phase(name).isTerminal());
            Rollout done = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
            assertThat(done.getStatus().phase).as(Serialization.asJson(done.getStatus())).isEqualTo(PhaseName.Succeeded);
            assertThat(done.getStatus().reward).isEqualTo(1.0);
        }
        if ("Warm".equals(start)) {
            // where the warm path's time goes: the sidecar's own lines (claim seen, API listening, both from the claim)
            String log = client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).inContainer(
                    dev.crucible.controllers.common.RolloutLabels.VERIFIER_CONTAINER).getLog();
            log.lines().filter(l -> l.contains("after the claim was made") || l.contains("after it was made") || l.contains("before the claim"))
                    .forEach(l -> System.err.println(name + ": " + l));
        }
        client.resources(Rollout.class).inNamespace(NS).withName(name).delete();
        String podName = pod.getMetadata().getName();
        Awaitility.await(name + "'s pod gone").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> client.pods().inNamespace(NS).withName(podName).get() == null);
        return ms;
    }

    /** The pool's unclaimed pod once its sidecar started: its startup probe saw setup done. */
    private void awaitSetUpPoolPod() {
        Awaitility.await("a set-up pool pod").atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofMillis(500)).until(() ->
                client.pods().inNamespace(NS).withLabel(WarmPoolLabels.STATE, WarmPoolLabels.FREE).list().getItems().stream()
                        .anyMatch(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
                                && p.getStatus().getContainerStatuses() != null && p.getStatus().getContainerStatuses().stream()
                                .anyMatch(c -> dev.crucible.controllers.common.RolloutLabels.VERIFIER_CONTAINER.equals(c.getName()) && Boolean.TRUE.equals(c.getStarted()))));
        Awaitility.await("the pool's status").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
            RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(NS).withName(ENV).get();
            return e.getStatus() != null && e.getStatus().warmPool != null && Integer.valueOf(1).equals(e.getStatus().warmPool.ready);
        });
    }

    private PhaseName phase(String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    private static int post(HttpClient http, String url, String body, String token) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(5))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        for (int attempt = 0; ; attempt++) {
            try {
                return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (ConnectException e) {
                if (attempt > 600) {
                    throw e;
                }
                Thread.sleep(100); // a cold pod's sidecar may still be starting its API
            }
        }
    }

    private static long p50(List<Long> v) {
        List<Long> s = v.stream().sorted().toList();
        return s.get((s.size() - 1) / 2);
    }

    private static long max(List<Long> v) {
        return v.stream().mapToLong(Long::longValue).max().orElse(0);
    }
}
