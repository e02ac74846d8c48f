package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.Fixtures;
import org.junit.jupiter.api.Test;

/** The objects beside the pods: NetworkPolicy, headless Service, ConfigMap. */
class SideObjectsTest {

    @Test
    void egressIsDeniedExceptTheAllowList() {
        var np = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), Fixtures.cpuEnvironment("env"), false);
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
        var deny = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), env, false);
        assertThat(deny.getSpec().getEgress()).isEmpty();
    }

    @Test
    void gangPolicyLetsMembersAndDnsThrough() {
        var np = EgressPolicyBuilder.build(Fixtures.rollout("r1", "env"), Fixtures.twoNodeEnvironment("env", 8), true);
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
    void configMapCarriesTheEnvironmentManifest() {
        var cm = EnvironmentConfigMapBuilder.build(Fixtures.rollout("r1", "env"), Fixtures.cpuEnvironment("env"));
        assertThat(cm.getMetadata().getName()).isEqualTo("r1-environment");
        String yaml = cm.getData().get("environment.yaml");
        assertThat(yaml).contains("apiVersion: crucible.dev/v1alpha1").contains("kind: RLEnvironment")
                .contains("name: env").contains("command: pytest -q").doesNotContain("status");
        assertThat(cm.getData().get("task.md")).isEqualTo("fix the bug");
        assertThat(cm.getData().get("rollout.yaml")).contains("kind: Rollout");
    }

    @Test
    void apiTokenSecretIsOwnedImmutableAndRandom() {
        var a = EnvApiTokenSecretBuilder.build(Fixtures.rollout("r1", "env"));
        var b = EnvApiTokenSecretBuilder.build(Fixtures.rollout("r1", "env"));
        assertThat(a.getMetadata().getName()).isEqualTo("r1-env-api");
        assertThat(a.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("Rollout"));
        assertThat(a.getImmutable()).isTrue();
        assertThat(a.getStringData().get("token")).hasSize(43).isNotEqualTo(b.getStringData().get("token"));
    }
}
