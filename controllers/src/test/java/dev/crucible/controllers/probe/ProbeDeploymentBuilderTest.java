package dev.crucible.controllers.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.probe.Device;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The probe server Deployment: GPU placement, command line, probes, hardening, volumes. */
class ProbeDeploymentBuilderTest {

    static final OperatorSettings SETTINGS = OperatorSettings.defaults();
    static final ProbeDeploymentBuilder BUILDER = new ProbeDeploymentBuilder(SETTINGS, "crucible/probe:test");

    static Deployment build(ProbeModel p) {
        return BUILDER.build(p, ProbeConfigMapBuilder.probeJson(p));
    }

    static Container server(Deployment d) {
        assertThat(d.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
        return d.getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    @Test
    void gpuProbeRunsOnGpuNodes() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        p.getSpec().serving.nodeSelector = Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
        Deployment d = build(p);
        assertThat(d.getMetadata().getName()).isEqualTo("swe-probe");
        assertThat(d.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getName()).isEqualTo("swe"));
        assertThat(d.getSpec().getReplicas()).isEqualTo(2);
        assertThat(d.getSpec().getSelector().getMatchLabels()).isEqualTo(ProbeNames.selector("swe"));
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(ProbeNames.selector("swe"));
        // No surge: a rolling update must not need a spare GPU.
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal()).isZero();
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true")
                .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
        assertThat(pod.getTolerations()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
        assertThat(pod.getAffinity()).isNull();
        Container c = server(d);
        assertThat(c.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(c.getResources().getRequests()).containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(c.getImage()).isEqualTo("crucible/probe:test");
        assertThat(c.getCommand()).containsExactly("java", "-cp", "/app/resources:/app/classes:/app/libs/*",
                "dev.crucible.probe.ProbeServerMain", "--model", "/etc/crucible/probe", "--host", "0.0.0.0", "--port", "8080",
                "--device", "auto", "--token-budget", "16384", "--max-request-bytes", "8388608", "--max-turns", "64");
    }

    @Test
    void readinessLivenessAndStartupProbeHealthz() {
        Container c = server(build(ProbeFixtures.trajectoryProbe("swe")));
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getStartupProbe().getPeriodSeconds() * c.getStartupProbe().getFailureThreshold())
                .isGreaterThanOrEqualTo(600);
        assertThat(c.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8080));
    }

    @Test
    void hardenedLikeRolloutPods() {
        Deployment d = build(ProbeFixtures.trajectoryProbe("swe"));
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(SETTINGS.runAsUser());
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        var sc = server(d).getSecurityContext();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(server(d).getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(server(d).getResources().getLimits()).containsKey("memory");
    }

    @Test
    void modelClaimIsMountedReadOnlyBesideTheConfig() {
        Deployment d = build(ProbeFixtures.trajectoryProbe("swe"));
        var volumes = d.getSpec().getTemplate().getSpec().getVolumes();
        assertThat(volumes).extracting(Volume::getName).containsExactly("probe-config", "models", "tmp");
        assertThat(volumes.get(0).getConfigMap().getName()).isEqualTo("swe-probe-config");
        assertThat(volumes.get(1).getPersistentVolumeClaim().getClaimName()).isEqualTo("probe-models");
        assertThat(volumes.get(1).getPersistentVolumeClaim().getReadOnly()).isTrue();
        assertThat(server(d).getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/models");
            assertThat(m.getReadOnly()).isTrue();
        }).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/crucible/probe"));

        ProbeModel noClaim = ProbeFixtures.trajectoryProbe("img");
        noClaim.getSpec().referenceModel.claimName = null;
        assertThat(build(noClaim).getSpec().getTemplate().getSpec().getVolumes())
                .extracting(Volume::getName).containsExactly("probe-config", "tmp");
    }

    @Test
    void cpuProbeStaysOffGpuNodes() {
        Deployment d = build(ProbeFixtures.cpuProbe("cpu"));
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).isNull();
        assertThat(pod.getTolerations()).isNull();
        assertThat(pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getOperator()).isEqualTo("DoesNotExist");
        assertThat(server(d).getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
        assertThat(server(d).getCommand()).containsSequence("--device", "cpu");
        assertThat(server(d).getCommand()).doesNotContain("--max-turns");
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
    }

    @Test
    void specImageAndDeviceWin() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        p.getSpec().serving.image = "registry.local/probe:2";
        p.getSpec().serving.device = Device.CUDA;
        p.getSpec().serving.gpus = 2;
        Container c = server(build(p));
        assertThat(c.getImage()).isEqualTo("registry.local/probe:2");
        assertThat(c.getCommand()).containsSequence("--device", "cuda");
        assertThat(c.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("2"));
        assertThat(server(new ProbeDeploymentBuilder(SETTINGS, null).build(p, "{}")).getImage())
                .isEqualTo("registry.local/probe:2");
        p.getSpec().serving.image = null;
        assertThat(server(new ProbeDeploymentBuilder(SETTINGS, null).build(p, "{}")).getImage())
                .isEqualTo(ProbeDeploymentBuilder.DEFAULT_IMAGE);
    }

    @Test
    void aNewProbeJsonRollsThePods() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        String before = build(p).getSpec().getTemplate().getMetadata().getAnnotations().get(ProbeNames.CONFIG_HASH);
        p.getSpec().layer = 1;
        String after = build(p).getSpec().getTemplate().getMetadata().getAnnotations().get(ProbeNames.CONFIG_HASH);
        assertThat(before).isNotBlank().isNotEqualTo(after);
    }
}
