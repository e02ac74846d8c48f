package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.environment.NetworkSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Egress of rollout pods: denied, except to the rollout's own pods (gang rendezvous), to cluster DNS
 * for multi-node rollouts (members find each other by name), and to the environment's allow-list.
 */
public final class EgressPolicyBuilder {

    private EgressPolicyBuilder() {
    }

    public static NetworkPolicy build(Rollout rollout, RLEnvironment environment, boolean gang) {
        String name = rollout.getMetadata().getName();
        List<NetworkPolicyEgressRule> rules = new ArrayList<>();
        if (gang) {
            rules.add(new NetworkPolicyEgressRuleBuilder().addNewTo().withNewPodSelector()
                    .withMatchLabels(RolloutLabels.forRollout(name)).endPodSelector().endTo().build());
            rules.add(new NetworkPolicyEgressRuleBuilder()
                    .addNewTo().withNewNamespaceSelector().endNamespaceSelector()
                    .withNewPodSelector().addToMatchLabels("k8s-app", "kube-dns").endPodSelector().endTo()
                    .addNewPort().withProtocol("UDP").withPort(new IntOrString(53)).endPort()
                    .addNewPort().withProtocol("TCP").withPort(new IntOrString(53)).endPort()
                    .build());
        }
        NetworkSpec network = environment.getSpec().sandbox == null ? null : environment.getSpec().sandbox.network;
        if (network != null && network.allow != null) {
            for (String entry : network.allow) {
                rules.add(allow(entry));
            }
        }
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName(RolloutLabels.networkPolicyName(name))
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(RolloutLabels.forRollout(name))
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withNewSpec()
                .withNewPodSelector().withMatchLabels(RolloutLabels.forRollout(name)).endPodSelector()
                .withPolicyTypes("Egress")
                .withEgress(rules)
                .endSpec()
                .build();
    }

    /** {@code CIDR[:port]} from the environment's allow-list. */
    static NetworkPolicyEgressRule allow(String entry) {
        int slash = entry.indexOf('/');
        int colon = entry.indexOf(':', slash);
        String cidr = colon < 0 ? entry : entry.substring(0, colon);
        NetworkPolicyEgressRuleBuilder rule = new NetworkPolicyEgressRuleBuilder()
                .addNewTo().withNewIpBlock().withCidr(cidr).endIpBlock().endTo();
        if (colon >= 0) {
            rule.addNewPort().withProtocol("TCP").withPort(new IntOrString(Integer.parseInt(entry.substring(colon + 1)))).endPort();
        }
        return rule.build();
    }
}
