package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.config.TraceStorePeer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Rollout pods' egress to the trace store: with a store set, the pod's policy allows the store's pods (their labels, in
 * their namespace, on their port) besides the environment's allow-list, and nothing more; without one, the policy is
 * the allow-list alone, as before. The real node's CNI (the bridge plugin) enforces no NetworkPolicy, so no tier sends
 * a packet through this rule: the objects are checked here and the chart's side in {@code ChartTraceStoreTest}.
 */
class TraceStoreEgressTest {
    private static final Map<String, String> STORE_LABELS = Map.of("app.kubernetes.io/name", "crucible",
            "app.kubernetes.io/instance", "crucible", "app.kubernetes.io/component", "trace-store");
    private static final OperatorSettings STORE = OperatorSettings.defaults()
            .withTraceStore("http://10.96.0.12:8470")
            .withTraceStorePeer(TraceStorePeer.parse("crucible-system",
                    "app.kubernetes.io/name=crucible, app.kubernetes.io/instance=crucible,app.kubernetes.io/component=trace-store", 8470));

    @Test
    void theSharedPolicyAllowsTheStoresPodsOnItsPortAndNothingElseMore() {
        RLEnvironment env = Fixtures.cpuEnvironment("env"); // allows 10.1.0.0/16:443 and 192.168.0.0/24
        NetworkPolicy without = EgressPolicyBuilder.shared("team-a", env, OperatorSettings.defaults());
        NetworkPolicy with = EgressPolicyBuilder.shared("team-a", env, STORE);

        List<NetworkPolicyEgressRule> rules = with.getSpec().getEgress();
        assertThat(rules).hasSize(without.getSpec().getEgress().size() + 1);
        assertThat(rules.subList(0, rules.size() - 1)).isEqualTo(without.getSpec().getEgress());
        assertStoreRule(rules.get(rules.size() - 1));

        // A pod with the store selects the policy that has the rule, never the store-less one.
        Pod pod = pod(env, STORE);
        assertThat(with.getSpec().getPodSelector().getMatchLabels())
                .containsExactly(Map.entry(RolloutLabels.EGRESS, pod.getMetadata().getLabels().get(RolloutLabels.EGRESS)));
        assertThat(with.getMetadata().getName()).isNotEqualTo(without.getMetadata().getName());
        assertThat(pod(env, OperatorSettings.defaults()).getMetadata().getLabels().get(RolloutLabels.EGRESS))
                .isEqualTo(without.getSpec().getPodSelector().getMatchLabels().get(RolloutLabels.EGRESS));
    }

    @Test
    void aClosedEnvironmentReachesOnlyTheStore() {
        RLEnvironment closed = Fixtures.cpuEnvironment("closed");
        closed.getSpec().sandbox.network.allow = null;
        assertThat(EgressPolicyBuilder.shared("team-a", closed, OperatorSettings.defaults()).getSpec().getEgress()).isEmpty();
        List<NetworkPolicyEgressRule> rules = EgressPolicyBuilder.shared("team-a", closed, STORE).getSpec().getEgress();
        assertThat(rules).hasSize(1);
        assertStoreRule(rules.get(0));
    }

    @Test
    void aGangsOwnPolicyHasTheStoreRuleAfterMembersDnsAndAllowList() {
        RLEnvironment gangEnv = Fixtures.twoNodeEnvironment("env", 8);
        var without = EgressPolicyBuilder.build(Fixtures.rollout("g1", "env"), gangEnv, true, OperatorSettings.defaults());
        var with = EgressPolicyBuilder.build(Fixtures.rollout("g1", "env"), gangEnv, true, STORE);
        List<NetworkPolicyEgressRule> rules = with.getSpec().getEgress();
        assertThat(rules.subList(0, rules.size() - 1)).isEqualTo(without.getSpec().getEgress());
        assertStoreRule(rules.get(rules.size() - 1));
    }

    @Test
    void aPeerWithoutAStoreUrlAddsNoRule() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        OperatorSettings peerOnly = OperatorSettings.defaults().withTraceStorePeer(STORE.traceStorePeer());
        assertThat(EgressPolicyBuilder.shared("team-a", env, peerOnly))
                .isEqualTo(EgressPolicyBuilder.shared("team-a", env, OperatorSettings.defaults()));
    }

    @Test
    void aBadPeerSettingNamesItsKey() {
        assertThatThrownBy(() -> TraceStorePeer.parse("crucible", "app.kubernetes.io/name", 8470))
                .hasMessage("crucible.trace-store.pod-selector: expected key=value, got 'app.kubernetes.io/name'");
        assertThatThrownBy(() -> TraceStorePeer.parse("crucible", " , ", 8470))
                .hasMessageStartingWith("crucible.trace-store.pod-selector: at least one");
        assertThatThrownBy(() -> TraceStorePeer.parse(" ", "a=b", 8470))
                .hasMessageStartingWith("crucible.trace-store.namespace: required");
        assertThatThrownBy(() -> TraceStorePeer.parse("crucible", "a=b", 0))
                .hasMessage("crucible.trace-store.pod-port: expected 1-65535, got 0");
    }

    /** One peer (the store's namespace by its name label, the store's pod labels exactly), one port (TCP 8470), no ipBlock. */
    private static void assertStoreRule(NetworkPolicyEgressRule rule) {
        assertThat(rule.getTo()).singleElement().satisfies(peer -> {
            assertThat(peer.getIpBlock()).isNull();
            assertThat(peer.getNamespaceSelector().getMatchLabels()).containsExactly(Map.entry("kubernetes.io/metadata.name", "crucible-system"));
            assertThat(peer.getNamespaceSelector().getMatchExpressions()).isNullOrEmpty();
            assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(STORE_LABELS);
            assertThat(peer.getPodSelector().getMatchExpressions()).isNullOrEmpty();
        });
        assertThat(rule.getPorts()).singleElement().satisfies(port -> {
            assertThat(port.getProtocol()).isEqualTo("TCP");
            assertThat(port.getPort().getIntVal()).isEqualTo(8470);
            assertThat(port.getEndPort()).isNull();
        });
    }

    private static Pod pod(RLEnvironment env, OperatorSettings settings) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        return new RolloutPodBuilder(settings).build(Fixtures.rollout("r1", env.getMetadata().getName()), env, plan.get(0), plan, false, null);
    }
}
