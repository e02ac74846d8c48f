package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.controllers.common.OwnerReferences;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** ClusterIP Service in front of the probe servers: status.endpoint names it; only Ready pods get traffic. */
public final class ProbeServiceBuilder {

    private ProbeServiceBuilder() {
    }

    public static Service build(ProbeModel probe) {
        String name = probe.getMetadata().getName();
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(ProbeNames.serverName(name))
                .withNamespace(probe.getMetadata().getNamespace())
                .withLabels(ProbeNames.labels(name))
                .withOwnerReferences(OwnerReferences.controlledBy(probe))
                .endMetadata()
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(ProbeNames.selector(name))
                .addNewPort().withName("http").withPort(ProbeNames.PORT).withTargetPort(new IntOrString("http"))
                .withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }
}
