package dev.crucible.e2e.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Warm pools on a real API server, kube-scheduler and kwok (which runs pods and marks them ready; no container
 * runs, so "ready" here is kwok's Ready condition, not a sidecar's). Each test its own namespace.
 */
class WarmPoolOnApiServerTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    @Test
    void aRolloutClaimsAReadyPoolPodWhichNeverReturnsToThePool() {
        String ns = SharedCluster.namespace("warm-claim");
        WarmPoolFixtures.environment(client, ns, "calc", 2, 2);
        List<Pod> pool = WarmPoolFixtures.awaitReady(client, ns, "calc", 2);
        Set<String> poolNames = pool.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
        // a pool pod holds no attempt: no Rollout name, deadline, task file, rollout.yaml or claim
        for (Pod p : pool) {
            assertThat(p.getMetadata().getAnnotations()).containsEntry("crucible.dev/rollout-yaml", "").containsEntry("crucible.dev/claim", "");
            assertThat(p.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("RLEnvironment"));
            for (Container c : p.getSpec().getContainers()) {
                assertThat(c.getEnv()).extracting(EnvVar::getName).doesNotContain("CRUCIBLE_ROLLOUT", "CRUCIBLE_DEADLINE_AT", "CRUCIBLE_MAX_TURNS");
                assertThat(c.getVolumeMounts()).noneMatch(m -> m.getMountPath().equals("/crucible/task.md"));
            }
        }

        WarmPoolFixtures.rollout(client, ns, "calc-a0", "calc", "limits: {maxDurationSeconds: 600, maxTurns: 7}");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "calc-a0") == PhaseName.Running);
        Rollout running = WarmPoolFixtures.get(client, ns, "calc-a0");
        assertThat(running.getStatus().start).isEqualTo("Warm");
        Pod claimed = client.pods().inNamespace(ns).withName(running.getStatus().members.get(0).pod).get();
        assertThat(poolNames).contains(claimed.getMetadata().getName());
        assertThat(claimed.getMetadata().getLabels()).containsEntry("crucible.dev/warm-state", "claimed")
                .containsEntry("crucible.dev/rollout", "calc-a0");
        assertThat(claimed.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Rollout");
            assertThat(o.getName()).isEqualTo("calc-a0");
            assertThat(o.getController()).isTrue();
        });
        // the attempt handed over in the annotations its downward-API volume projects
        assertThat(claimed.getMetadata().getAnnotations().get("crucible.dev/claim"))
                .contains("\"rollout\":\"calc-a0\"").contains("\"maxTurns\":7").contains("\"deadlineAt\":");
        assertThat(claimed.getMetadata().getAnnotations().get("crucible.dev/rollout-yaml")).contains("name: calc-a0");
        assertThat(claimed.getSpec().getActiveDeadlineSeconds()).isBetween(600L + 60, 600L + 60 + 120);
        assertThat(running.getStatus().endpoint).as("the environment API of the claimed pod").startsWith("http://");

        // the pool refills, never with the claimed pod
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName("calc").get();
            return e.getStatus().warmPool.claimed == 1 && e.getStatus().warmPool.ready == 2;
        });
        assertThat(WarmPoolFixtures.free(client, ns, "calc")).extracting(p -> p.getMetadata().getName())
                .hasSize(2).doesNotContain(claimed.getMetadata().getName());
        RLEnvironment env = client.resources(RLEnvironment.class).inNamespace(ns).withName("calc").get();
        assertThat(env.getStatus().conditions).anySatisfy(c -> assertThat(c.getType()).isEqualTo("WarmPool"));

        // the attempt ends as a cold one would, and its pod goes with it
        Manifests.verifierExits(client, ns, claimed.getMetadata().getName(), """
                {"reward":1.0,"verdict":"pass","tests":{"passed":2,"failed":0,"skipped":0,"total":2},"hackFindings":[],"turns":3,"phase":"Succeeded"}""");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "calc-a0") == PhaseName.Succeeded);
        assertThat(WarmPoolFixtures.get(client, ns, "calc-a0").getStatus().reward).isEqualTo(1.0);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Pod p = client.pods().inNamespace(ns).withName(claimed.getMetadata().getName()).get();
            return p == null || p.getMetadata().getDeletionTimestamp() != null;
        });
        assertThat(WarmPoolFixtures.free(client, ns, "calc")).extracting(p -> p.getMetadata().getName())
                .doesNotContain(claimed.getMetadata().getName());
    }

    @Test
    void anEmptyPoolOrWarmPoolNeverStartsCold() {
        String ns = SharedCluster.namespace("warm-cold");
        WarmPoolFixtures.environment(client, ns, "empty", 0, 1); // min 0 and no claims yet: target 0, no pod
        WarmPoolFixtures.rollout(client, ns, "empty-a0", "empty", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "empty-a0") == PhaseName.Running);
        Rollout cold = WarmPoolFixtures.get(client, ns, "empty-a0");
        assertThat(cold.getStatus().start).isEqualTo("Cold");
        assertThat(cold.getStatus().members.get(0).pod).isEqualTo("empty-a0-main-0");

        WarmPoolFixtures.environment(client, ns, "full", 1, 1);
        WarmPoolFixtures.awaitReady(client, ns, "full", 1);
        WarmPoolFixtures.rollout(client, ns, "full-never", "full", "warmPool: never");
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.phase(client, ns, "full-never") == PhaseName.Running);
        assertThat(WarmPoolFixtures.get(client, ns, "full-never").getStatus().start).isEqualTo("Cold");
        assertThat(WarmPoolFixtures.free(client, ns, "full")).as("the pool pod is still there, unclaimed").hasSize(1);
    }

    /** Eight Rollouts at once for one ready pod: the claim is conditional on the pod's version, so one gets it. */
    @Test
    void concurrentClaimsNeverShareAPod() throws Exception {
        String ns = SharedCluster.namespace("warm-race");
        WarmPoolFixtures.environment(client, ns, "race", 1, 1);
        WarmPoolFixtures.awaitReady(client, ns, "race", 1);
        List<CompletableFuture<Rollout>> created = IntStream.range(0, 8).mapToObj(i -> CompletableFuture.supplyAsync(
                () -> WarmPoolFixtures.rollout(client, ns, "race-a" + i, "race", "limits: {maxDurationSeconds: 600}"))).toList();
        for (var f : created) {
            f.get();
        }
        // a pod claimed twice would leave one of the two Rollouts without a pod of its own, never Running
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(IntStream.range(0, 8)
                .mapToObj(i -> WarmPoolFixtures.phase(client, ns, "race-a" + i))).as("phases").containsOnly(PhaseName.Running));
        List<Rollout> rollouts = IntStream.range(0, 8).mapToObj(i -> WarmPoolFixtures.get(client, ns, "race-a" + i)).toList();
        List<String> pods = rollouts.stream().map(r -> r.getStatus().members.get(0).pod).toList();
        assertThat(pods).as("one pod per Rollout").doesNotHaveDuplicates();
        long warm = rollouts.stream().filter(r -> "Warm".equals(r.getStatus().start)).count();
        assertThat(warm).as("the ready pod was claimed").isGreaterThanOrEqualTo(1);
        for (Rollout r : rollouts) {
            Pod p = client.pods().inNamespace(ns).withName(r.getStatus().members.get(0).pod).get();
            assertThat(p.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getName()).isEqualTo(r.getMetadata().getName()));
        }
    }

    /** A pool no node can hold says why in its condition, and makes no more pods while it cannot place one. */
    @Test
    void aPoolTheClusterCannotHoldSaysWhy() {
        String ns = SharedCluster.namespace("warm-toobig");
        RLEnvironment env = Manifests.environment(client, ns, "huge", """
                resources: {cpu: "100", memory: 512Mi}
                warmPool: {min: 2, max: 2, refillPerSecond: 20}""");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            RLEnvironment e = client.resources(RLEnvironment.class).inNamespace(ns).withName("huge").get();
            assertThat(e.getStatus()).isNotNull();
            assertThat(e.getStatus().conditions).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("WarmPool");
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("Unschedulable");
                assertThat(c.getMessage()).contains("huge-warm-").contains("Insufficient cpu");
            });
            assertThat(e.getStatus().warmPool.ready).isZero();
        });
        assertThat(WarmPoolFixtures.free(client, ns, "huge")).hasSize(2);
        client.resource(env).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.free(client, ns, "huge").isEmpty());
    }

    @Test
    void deletingTheEnvironmentDeletesItsPoolAndAnEditReplacesIt() {
        String ns = SharedCluster.namespace("warm-delete");
        RLEnvironment env = WarmPoolFixtures.environment(client, ns, "gone", 2, 2);
        Set<String> first = WarmPoolFixtures.awaitReady(client, ns, "gone", 2).stream().map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet());
        // a new generation of the environment: its old pool pods are replaced
        client.resources(RLEnvironment.class).inNamespace(ns).withName("gone").edit(e -> {
            e.getSpec().task.prompt = "fix divide() and multiply()";
            return e;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<Pod> now = WarmPoolFixtures.free(client, ns, "gone");
            return WarmPoolFixtures.readyCount(client, ns, "gone") == 2
                    && now.stream().noneMatch(p -> first.contains(p.getMetadata().getName()));
        });
        client.resource(env).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> WarmPoolFixtures.free(client, ns, "gone").isEmpty());
    }
}
