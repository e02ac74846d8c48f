package dev.crucible.controllers.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import org.junit.jupiter.api.Test;

/** Names valid for every kind they name, the Service, and how ConfigMaps find their ProbeModel. */
class ProbeNamesAndServiceTest {

    static final String DNS_1035 = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

    @Test
    void serverNamesAreDns1035Labels() {
        assertThat(ProbeNames.serverName("swe")).isEqualTo("swe-probe");
        assertThat(ProbeNames.serverName("team.a.probe")).isEqualTo("team-a-probe-probe").matches(DNS_1035);
        assertThat(ProbeNames.serverName("7b-probe")).isEqualTo("p-7b-probe-probe").matches(DNS_1035);
        String longA = "a".repeat(100) + "-one";
        String longB = "a".repeat(100) + "-two";
        assertThat(ProbeNames.serverName(longA)).hasSizeLessThanOrEqualTo(63).matches(DNS_1035)
                .isNotEqualTo(ProbeNames.serverName(longB));
        assertThat(ProbeNames.labels(longA).get(ProbeNames.PROBE_MODEL)).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void serviceSelectsTheServerPodsOnPort8080() {
        var svc = ProbeServiceBuilder.build(ProbeFixtures.trajectoryProbe("swe"));
        assertThat(svc.getMetadata().getName()).isEqualTo("swe-probe");
        assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(svc.getSpec().getSelector()).isEqualTo(ProbeNames.selector("swe"));
        assertThat(svc.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort()).isEqualTo(8080);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
        });
        assertThat(svc.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("ProbeModel"));
    }

    @Test
    void configMapsMapToTheirProbe() {
        var mapper = ProbeModelReconciler.configMapToProbe();
        var report = new ConfigMapBuilder().withNewMetadata().withName("swe-training-report").withNamespace("ns")
                .endMetadata().build();
        assertThat(mapper.toPrimaryResourceIDs(report)).containsExactly(new ResourceID("swe", "ns"));
        var owned = ProbeConfigMapBuilder.build(ProbeFixtures.trajectoryProbe("swe"));
        owned.getMetadata().setOwnerReferences(java.util.List.of(new OwnerReferenceBuilder()
                .withApiVersion("crucible.dev/v1alpha1").withKind("ProbeModel").withName("swe").withUid("u")
                .withController(true).build()));
        assertThat(mapper.toPrimaryResourceIDs(owned)).containsExactly(new ResourceID("swe", "ns"));
        var other = new ConfigMapBuilder().withNewMetadata().withName("-training-report").withNamespace("ns")
                .endMetadata().build();
        assertThat(mapper.toPrimaryResourceIDs(other)).isEmpty();
    }
}
