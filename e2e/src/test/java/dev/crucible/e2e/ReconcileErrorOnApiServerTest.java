package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.rollout.EnvironmentConfigMapBuilder;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.controllers.status.StatusWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A reconcile that fails for a reason other than RBAC (here an immutable ConfigMap of someone else holds
 * the Rollout's environment ConfigMap name, so the apply is refused) shows on the object as a
 * ReconcileError condition and a Warning Event naming the API error, and clears once the obstacle is gone.
 */
class ReconcileErrorOnApiServerTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    private static Condition errorCondition(String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        List<Condition> conditions = r == null || r.getStatus() == null || r.getStatus().conditions == null ? List.of()
                : r.getStatus().conditions;
        return conditions.stream().filter(c -> StatusWriter.ERROR_CONDITION.equals(c.getType())).findFirst().orElse(null);
    }

    @Test
    void aFailingReconcileIsAConditionAndAnEventThenClears() {
        String ns = SharedCluster.namespace("reconcile-error");
        // someone else's immutable ConfigMap holding the name of the environment's shared one
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        String configMap = EnvironmentConfigMapBuilder.build(
                client.resources(RLEnvironment.class).inNamespace(ns).withName("calc").get()).getMetadata().getName();
        client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(configMap).endMetadata().withImmutable(true)
                .addToData("environment.yaml", "not ours").build()).create();
        Manifests.rollout(client, ns, "blocked", "calc", "");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Condition c = errorCondition(ns, "blocked");
            assertThat(c).as("the ReconcileError condition").isNotNull();
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).startsWith("ApiError4");
            assertThat(c.getMessage()).startsWith("reconcile failed: ");
        });
        List<Event> events = client.v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> "blocked".equals(e.getInvolvedObject().getName()) && StatusWriter.ERROR_CONDITION.equals(e.getReason()))
                .toList();
        assertThat(events).as("a Warning Event for the failure").isNotEmpty()
                .allSatisfy(e -> assertThat(e.getType()).isEqualTo("Warning"));
        assertThat(events.stream().mapToInt(e -> e.getCount() == null ? 1 : e.getCount()).sum())
                .as("the same failure is reported once, not on every retry").isEqualTo(1);

        client.configMaps().inNamespace(ns).withName(configMap).delete();
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            assertThat(errorCondition(ns, "blocked")).as("cleared by the reconcile that goes through").isNull();
            Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("blocked").get();
            assertThat(r.getStatus().phase).isIn(PhaseName.Pending, PhaseName.Initializing, PhaseName.Running);
            assertThat(Manifests.podsOf(client, ns, "blocked")).isNotEmpty();
        });
    }
}
