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
 * A single-pod Rollout is selected by a policy shared by every pod with the same allow-list in its
 * namespace ({@link #shared}, selected by the {@link RolloutLabels#EGRESS} label, named by a hash of the
 * rules and owned by nothing, so deleting one environment never opens another's pods); a gang has its
 * own policy, since "the rollout's own pods" names it.
 */
public final class EgressPolicyBuilder {

    private EgressPolicyBuilder() {
    }

    /** The policy a single-pod Rollout of {@code environment} is selected by (its pod carries {@link #sharedLabel}). */
    public static NetworkPolicy shared(String namespace, RLEnvironment environment) {
        String hash = sharedLabel(environment);
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName("crucible-egress-" + hash)
                .withNamespace(namespace)
                .withLabels(java.util.Map.of(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE, RolloutLabels.EGRESS, hash))
                .endMetadata()
                .withNewSpec()
                .withNewPodSelector().addToMatchLabels(RolloutLabels.EGRESS, hash).endPodSelector()
                .withPolicyTypes("Egress")
                .withEgress(allowList(environment))
                .endSpec()
                .build();
    }

    /** The {@link RolloutLabels#EGRESS} value of a single-pod Rollout's pod: a hash of its allow-list. */
    public static String sharedLabel(RLEnvironment environment) {
        return SideObjectNames.hash(allowList(environment).toString());
    }

    private static List<NetworkPolicyEgressRule> allowList(RLEnvironment environment) {
        List<NetworkPolicyEgressRule> rules = new ArrayList<>();
        NetworkSpec network = environment.getSpec().sandbox == null ? null : environment.getSpec().sandbox.network;
        if (network != null && network.allow != null) {
            for (String entry : network.allow) {
                rules.add(allow(entry));
            }
        }
        return rules;
    }

    /** A gang's own policy: its members, cluster DNS and the allow-list. */
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
        rules.addAll(allowList(environment));
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
