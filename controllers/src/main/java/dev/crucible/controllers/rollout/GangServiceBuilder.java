package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** Headless Service of a multi-node rollout: stable DNS names for rendezvous, ready or not. */
public final class GangServiceBuilder {

    private GangServiceBuilder() {
    }

    public static Service build(Rollout rollout, int rendezvousPort, int envApiPort) {
        String name = rollout.getMetadata().getName();
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(RolloutLabels.serviceName(name))
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(RolloutLabels.forRollout(name))
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                // Members must find each other before any is Ready: rendezvous happens during start-up.
                .withPublishNotReadyAddresses(true)
                .withSelector(RolloutLabels.forRollout(name))
                .addNewPort().withName("rendezvous").withPort(rendezvousPort).withProtocol("TCP").endPort()
                .addNewPort().withName("env-api").withPort(envApiPort).withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }
}
