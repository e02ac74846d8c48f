package dev.crucible.e2e;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RLEnvironment status: validity from the shared validator, and statistics over its Rollouts. */
class EnvironmentStatisticsTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    static RLEnvironment env(String ns, String name) {
        return client.resources(RLEnvironment.class).inNamespace(ns).withName(name).get();
    }

    @Test
    void groupSolveCountsAndLearnableBand() {
        String ns = SharedCluster.namespace("stats");
        Manifests.environment(client, ns, "calc", """
                resources: {cpu: 100m, memory: 128Mi}
                learnableBand: {minSolveRate: 0.25, maxSolveRate: 0.75}
                """);
        for (int i = 0; i < 4; i++) {
            Manifests.rollout(client, ns, "g1-a" + i, "calc", "group: {id: g1, attempt: " + i + ", size: 4}");
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> client.resources(Rollout.class).inNamespace(ns).list().getItems()
                .stream().allMatch(r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running));
        for (int i = 0; i < 4; i++) {
            boolean solved = i < 2;
            Manifests.verifierExits(client, ns, "g1-a" + i + "-main-0", solved
                    ? "{\"reward\":1.0,\"verdict\":\"pass\",\"phase\":\"Succeeded\"}"
                    : "{\"reward\":0.0,\"verdict\":\"fail\",\"phase\":\"Failed\"}");
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var s = env(ns, "calc").getStatus().statistics;
            assertThat(s.rollouts).isEqualTo(4);
            assertThat(s.succeeded).isEqualTo(2);
            assertThat(s.failed).isEqualTo(2);
            assertThat(s.solved).isEqualTo(2);
            assertThat(s.solveRate).isEqualTo(0.5);
            assertThat(s.learnableGroups).isEqualTo(1);
            assertThat(s.groups).singleElement().satisfies(g -> {
                assertThat(g.id).isEqualTo("g1");
                assertThat(g.finished).isEqualTo(4);
                assertThat(g.solved).isEqualTo(2);
                assertThat(g.learnable).isTrue();
            });
        });
        assertThat(env(ns, "calc").getStatus().phase).isEqualTo("Ready");
    }

    @Test
    void environmentTheApiServerAcceptsButTheValidatorRefusesIsInvalidAndHoldsItsRollouts() {
        String ns = SharedCluster.namespace("invalid-env");
        // A test in both failToPass and passToPass: a semantic rule CEL does not express.
        Manifests.environment(client, ns, "both", "resources: {cpu: 100m, memory: 128Mi}");
        client.resources(RLEnvironment.class).inNamespace(ns).withName("both")
                .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"spec\":{\"verifier\":{\"passToPass\":[\"tests/test_ops.py::test_divide_negative\"]}}}");
        await().atMost(Duration.ofSeconds(30)).until(() -> "Invalid".equals(env(ns, "both").getStatus().phase));
        assertThat(env(ns, "both").getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Valid");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getMessage()).contains("spec.verifier.passToPass[0]");
        });
        Manifests.rollout(client, ns, "held", "both", "");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("held").get();
            return r.getStatus() != null && "EnvironmentInvalid".equals(r.getStatus().reason);
        });
        assertThat(Manifests.podsOf(client, ns, "held")).isEmpty();
    }
}
