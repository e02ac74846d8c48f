package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import org.junit.jupiter.api.Test;

/** The objects beside the pods: NetworkPolicy, headless Service, ConfigMap. */
class SideObjectsTest {
    private static final OperatorSettings D = OperatorSettings.defaults();

    @Test
    void egressIsDeniedExceptTheAllowList() {
        var np = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), Fixtures.cpuEnvironment("env"), false, D);
        assertThat(np.getMetadata().getName()).isEqualTo("r1-egress");
        assertThat(np.getSpec().getPolicyTypes()).containsExactly("Egress");
        assertThat(np.getSpec().getPodSelector().getMatchLabels()).containsEntry(RolloutLabels.ROLLOUT, "r1");
        assertThat(np.getSpec().getEgress()).hasSize(2);
        assertThat(np.getSpec().getEgress().get(0).getTo().get(0).getIpBlock().getCidr()).isEqualTo("10.1.0.0/16");
        assertThat(np.getSpec().getEgress().get(0).getPorts().get(0).getPort().getIntVal()).isEqualTo(443);
        assertThat(np.getSpec().getEgress().get(1).getPorts()).isNullOrEmpty();
        assertThat(np.getMetadata().getOwnerReferences()).hasSize(1);

        var env = Fixtures.cpuEnvironment("env");
        env.getSpec().sandbox.network = null;
        var deny = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), env, false, D);
        assertThat(deny.getSpec().getEgress()).isEmpty();
    }

    @Test
    void gangPolicyLetsMembersAndDnsThrough() {
        var np = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), Fixtures.twoNodeEnvironment("env", 8), true, D);
        assertThat(np.getSpec().getEgress().get(0).getTo().get(0).getPodSelector().getMatchLabels())
                .containsEntry(RolloutLabels.ROLLOUT, "r1");
        assertThat(np.getSpec().getEgress().get(1).getPorts()).hasSize(2);
    }

    @Test
    void headlessServiceForRendezvous() {
        var svc = GangServiceBuilder.build(Fixtures.rollout("r1", "env"), 29500, 8080);
        assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(svc.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(svc.getSpec().getSelector()).containsEntry(RolloutLabels.ROLLOUT, "r1");
    }

    @Test
    void configMapIsOneForEachVersionOfAnEnvironment() {
        var env = Fixtures.cpuEnvironment("env");
        var cm = EnvironmentConfigMapBuilder.build(env);
        assertThat(cm.getMetadata().getName()).startsWith("crucible-env-env-").hasSize("crucible-env-env-".length() + 10);
        String yaml = cm.getData().get("environment.yaml");
        assertThat(yaml).contains("apiVersion: crucible.dev/v1alpha1").contains("kind: RLEnvironment")
                .contains("name: env").contains("command: pytest -q").doesNotContain("status");
        assertThat(cm.getData().get("task.md")).isEqualTo("fix the bug");
        assertThat(cm.getData()).doesNotContainKey("rollout.yaml"); // each pod's own, from its annotation
        assertThat(cm.getImmutable()).isTrue();
        assertThat(cm.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("RLEnvironment");
            assertThat(o.getController()).isNull(); // shared: no controller, and deleting the environment does not wait on it
        });
        // Same environment, same name (no write for the next Rollout); an edited one gets a new name, so the
        // immutable ConfigMap a running pod mounted is never rewritten.
        assertThat(EnvironmentConfigMapBuilder.build(Fixtures.cpuEnvironment("env")).getMetadata().getName())
                .isEqualTo(cm.getMetadata().getName());
        var edited = Fixtures.cpuEnvironment("env");
        edited.getSpec().task.prompt = "fix the other bug";
        assertThat(EnvironmentConfigMapBuilder.build(edited).getMetadata().getName()).isNotEqualTo(cm.getMetadata().getName());
    }

    @Test
    void apiTokenSecretIsOnePerNamespaceImmutableAndRandom() {
        var a = EnvApiTokenSecretBuilder.build("team-a");
        var b = EnvApiTokenSecretBuilder.build("team-a");
        assertThat(a.getMetadata().getName()).isEqualTo("crucible-env-api");
        assertThat(a.getMetadata().getNamespace()).isEqualTo("team-a");
        assertThat(a.getMetadata().getOwnerReferences()).isNullOrEmpty(); // outlives every Rollout
        assertThat(a.getImmutable()).isTrue();
        assertThat(a.getStringData().get("token")).hasSize(43).isNotEqualTo(b.getStringData().get("token"));
    }

    @Test
    void singlePodEgressPolicyIsSharedByTheSameAllowList() {
        var listed = Fixtures.cpuEnvironment("env"); // allows 10.1.0.0/16:443 and 192.168.0.0/24
        var sameList = Fixtures.cpuEnvironment("other");
        var closed = Fixtures.cpuEnvironment("closed");
        closed.getSpec().sandbox.network.allow = null;
        var np = EgressPolicyBuilder.shared("ns", listed, D);
        assertThat(np.getSpec().getPolicyTypes()).containsExactly("Egress");
        assertThat(np.getSpec().getEgress()).extracting(r -> r.getTo().get(0).getIpBlock().getCidr())
                .containsExactly("10.1.0.0/16", "192.168.0.0/24");
        assertThat(np.getMetadata().getOwnerReferences()).isNullOrEmpty(); // deleting an environment never opens another's pods
        assertThat(np.getSpec().getPodSelector().getMatchLabels())
                .containsExactly(java.util.Map.entry(RolloutLabels.EGRESS, EgressPolicyBuilder.sharedLabel(listed, D)));
        assertThat(EgressPolicyBuilder.shared("ns", sameList, D).getMetadata().getName()).isEqualTo(np.getMetadata().getName());
        var denyAll = EgressPolicyBuilder.shared("ns", closed, D);
        assertThat(denyAll.getMetadata().getName()).isNotEqualTo(np.getMetadata().getName());
        assertThat(denyAll.getSpec().getEgress()).isEmpty(); // selected, nothing allowed: all egress denied
    }
}
