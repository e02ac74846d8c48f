package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.environment.NetworkSpec;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.config.TraceStorePeer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Egress of rollout pods: denied, except to the rollout's own pods (gang rendezvous), to cluster DNS
 * for multi-node rollouts (members find each other by name), to the environment's allow-list, and, when the
 * operator ships trajectories ({@link OperatorSettings#traceStoreUrl()} with {@link OperatorSettings#traceStorePeer()}),
 * to the trace store's pods on the store's port only (the sidecar streams there; on a CNI that enforces policy it
 * could not otherwise).
 * A single-pod Rollout is selected by a policy shared by every pod with the same allow-list in its
 * namespace ({@link #shared}, selected by the {@link RolloutLabels#EGRESS} label, named by a hash of the
 * rules and owned by nothing, so deleting one environment never opens another's pods); a gang has its
 * own policy, since "the rollout's own pods" names it.
 */
public final class EgressPolicyBuilder {

    private EgressPolicyBuilder() {
    }

    /** The policy a single-pod Rollout of {@code environment} is selected by (its pod carries {@link #sharedLabel}). */
    public static NetworkPolicy shared(String namespace, RLEnvironment environment, OperatorSettings settings) {
        String hash = sharedLabel(environment, settings);
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName("crucible-egress-" + hash)
                .withNamespace(namespace)
                .withLabels(java.util.Map.of(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE, RolloutLabels.EGRESS, hash))
                .endMetadata()
                .withNewSpec()
                .withNewPodSelector().addToMatchLabels(RolloutLabels.EGRESS, hash).endPodSelector()
                .withPolicyTypes("Egress")
                .withEgress(allowList(environment, settings))
                .endSpec()
                .build();
    }

    /**
     * The {@link RolloutLabels#EGRESS} value of a single-pod Rollout's pod: a hash of its rules (allow-list and store),
     * so turning the store on gives pods a new policy; without a store the hash is the one of the allow-list alone.
     */
    public static String sharedLabel(RLEnvironment environment, OperatorSettings settings) {
        return SideObjectNames.hash(allowList(environment, settings).toString());
    }

    private static List<NetworkPolicyEgressRule> allowList(RLEnvironment environment, OperatorSettings settings) {
        List<NetworkPolicyEgressRule> rules = new ArrayList<>();
        NetworkSpec network = environment.getSpec().sandbox == null ? null : environment.getSpec().sandbox.network;
        if (network != null && network.allow != null) {
            for (String entry : network.allow) {
                rules.add(allow(entry));
            }
        }
        NetworkPolicyEgressRule store = traceStore(settings);
        if (store != null) rules.add(store);
        return rules;
    }

    /** The store's pods, in the store's namespace, on its port; null when no store (or no peer) is set. */
    static NetworkPolicyEgressRule traceStore(OperatorSettings settings) {
        TraceStorePeer peer = settings.traceStorePeer();
        if (settings.traceStoreUrl() == null || peer == null) return null;
        return new NetworkPolicyEgressRuleBuilder()
                .addNewTo()
                .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", peer.namespace()).endNamespaceSelector()
                .withNewPodSelector().withMatchLabels(new java.util.TreeMap<>(peer.podLabels())).endPodSelector()
                .endTo()
                .addNewPort().withProtocol("TCP").withPort(new IntOrString(peer.port())).endPort()
                .build();
    }

    /** A gang's own policy: its members, cluster DNS, the allow-list and the trace store. */
    public static NetworkPolicy build(Rollout rollout, RLEnvironment environment, boolean gang, OperatorSettings settings) {
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
        rules.addAll(allowList(environment, settings));
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
