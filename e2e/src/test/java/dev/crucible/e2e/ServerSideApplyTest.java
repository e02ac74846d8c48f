package dev.crucible.e2e;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.apply.ServerSideApply;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * GitOps friendliness on the real API server: every write of the operator is a server-side apply
 * under its own field manager (never an Update), it never writes a Rollout's spec, and a reconcile
 * that finds nothing to do changes no object.
 */
class ServerSideApplyTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    @Test
    void operatorWritesAreAppliesUnderItsOwnFieldManager() {
        String ns = SharedCluster.namespace("ssa");
        Manifests.environment(client, ns, "pair", """
                resources: {cpu: 500m, memory: 512Mi}
                topology:
                  gangTimeoutSeconds: 120
                  roles:
                    - name: worker
                      replicas: 2
                """);
        Manifests.rollout(client, ns, "pair-a0", "pair", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("pair-a0").get();
            return r.getStatus() != null && r.getStatus().phase == PhaseName.Running;
        });

        List<Pod> pods = Manifests.podsOf(client, ns, "pair-a0");
        assertThat(pods).hasSize(2).allSatisfy(p -> {
            // The gang gate was removed by re-applying the pod without it, not by a patch.
            assertThat(p.getSpec().getSchedulingGates()).isNullOrEmpty();
            assertOnlyApplies(p);
        });
        String configMap = pods.get(0).getSpec().getVolumes().stream().filter(v -> v.getProjected() != null).findFirst()
                .orElseThrow().getProjected().getSources().get(0).getConfigMap().getName();
        assertOnlyApplies(client.configMaps().inNamespace(ns).withName(configMap).get());
        assertOnlyApplies(client.network().v1().networkPolicies().inNamespace(ns).withName("pair-a0-egress").get());
        assertOnlyApplies(client.services().inNamespace(ns).withName("pair-a0").get());

        Rollout rollout = client.resources(Rollout.class).inNamespace(ns).withName("pair-a0").get();
        List<ManagedFieldsEntry> ours = ours(rollout);
        assertThat(ours).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getOperation()).isEqualTo("Apply");
            // Status only (no finalizer either): never a field of spec.
            assertThat(e.getFieldsV1().getAdditionalProperties()).as("fields the operator owns").doesNotContainKey("f:spec");
        });
        assertThat(ours).anySatisfy(e -> assertThat(e.getSubresource()).isEqualTo("status"));

        // A reconcile with nothing to do (a label change wakes it) must leave every object as it was.
        Map<String, String> before = versions(ns);
        client.resources(Rollout.class).inNamespace(ns).withName("pair-a0")
                .edit(r -> {
                    r.getMetadata().setLabels(new java.util.HashMap<>(r.getMetadata().getLabels() == null
                            ? Map.of() : r.getMetadata().getLabels()));
                    r.getMetadata().getLabels().put("touched", "yes");
                    return r;
                });
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(versions(ns)).isEqualTo(before));
    }

    private static Map<String, String> versions(String ns) {
        return Manifests.podsOf(client, ns, "pair-a0").stream().collect(Collectors.toMap(
                p -> p.getMetadata().getName(), p -> p.getMetadata().getResourceVersion()));
    }

    private static List<ManagedFieldsEntry> ours(HasMetadata object) {
        return object.getMetadata().getManagedFields().stream()
                .filter(e -> ServerSideApply.FIELD_MANAGER.equals(e.getManager())).toList();
    }

    private static void assertOnlyApplies(HasMetadata object) {
        assertThat(object).as("object exists").isNotNull();
        List<ManagedFieldsEntry> ours = ours(object);
        assertThat(ours).as(object.getKind() + " " + object.getMetadata().getName() + " managed by the operator")
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.getOperation()).isEqualTo("Apply"));
    }
}
