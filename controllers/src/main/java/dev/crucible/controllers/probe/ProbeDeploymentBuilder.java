package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.probe.Device;
import dev.crucible.api.v1alpha1.probe.ServingSpec;
import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.placement.PlacementBuilder;
import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.SecurityDefaults;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The probe server Deployment: {@code ProbeServerMain} reading probe.json from the ConfigMap and the
 * reference model, tokenizer and heads from the ReadOnlyMany claim at {@code /models}. With gpus > 0
 * it asks for {@code nvidia.com/gpu} and gets the operator's GPU node selector and tolerations; with
 * 0 it runs on CPU and stays off GPU nodes. Hardened like rollout pods (non-root, no capabilities,
 * RuntimeDefault seccomp, read-only root, no service-account token): it needs no API access.
 */
public final class ProbeDeploymentBuilder {
    public static final String DEFAULT_IMAGE = CrucibleImages.probeServer();
    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    public static final String MAIN_CLASS = "dev.crucible.probe.ProbeServerMain";
    /** The probe-server image's classpath: Jib's layout (resources, classes, dependency jars). */
    public static final String CLASSPATH = "/app/resources:/app/classes:/app/libs/*";
    // ServingSpec has no resources field: these fit a small reference model (weights live in ONNX
    // Runtime's native memory, on the GPU when there is one).
    static final String CPU_REQUEST = "1";
    static final String MEMORY_REQUEST = "4Gi";
    static final String MEMORY_LIMIT = "16Gi";
    /** Image pull plus model load on a fresh GPU node can take long; the default 600 s is tight. */
    static final int PROGRESS_DEADLINE_SECONDS = 900;

    private final OperatorSettings settings;
    private final String defaultImage;

    public ProbeDeploymentBuilder(OperatorSettings settings, String defaultImage) {
        this.settings = settings;
        this.defaultImage = defaultImage == null || defaultImage.isBlank() ? DEFAULT_IMAGE : defaultImage;
    }

    public Deployment build(ProbeModel probe, String probeJson) {
        String name = probe.getMetadata().getName();
        ServingSpec serving = probe.getSpec().serving == null ? new ServingSpec() : probe.getSpec().serving;
        int gpus = gpus(probe);
        var placement = PlacementBuilder.place(gpus, null, null, settings);
        Map<String, String> nodeSelector = new LinkedHashMap<>(placement.nodeSelector());
        if (serving.nodeSelector != null) {
            nodeSelector.putAll(serving.nodeSelector);
        }
        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        volumes.add(new VolumeBuilder().withName("probe-config").withNewConfigMap()
                .withName(ProbeNames.configMapName(name)).endConfigMap().build());
        mounts.add(mount("probe-config", ProbeConfigMapBuilder.MOUNT_PATH, true));
        String claim = probe.getSpec().referenceModel.claimName;
        if (claim != null && !claim.isBlank()) {
            volumes.add(new VolumeBuilder().withName("models").withNewPersistentVolumeClaim()
                    .withClaimName(claim).withReadOnly(true).endPersistentVolumeClaim().build());
            mounts.add(mount("models", ProbeConfigMapBuilder.MODEL_PATH, true));
        } // else the image itself carries the files under /models.
        // ONNX Runtime and the tokenizer unpack their native libraries at start: the only writable path.
        volumes.add(new VolumeBuilder().withName("tmp").withNewEmptyDir().withSizeLimit(new Quantity("1Gi"))
                .endEmptyDir().build());
        mounts.add(mount("tmp", "/tmp", false));

        Map<String, String> podAnnotations = Map.of(ProbeNames.CONFIG_HASH, ProbeNames.hash(probeJson).substring(0, 16));
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(ProbeNames.serverName(name))
                .withNamespace(probe.getMetadata().getNamespace())
                .withLabels(ProbeNames.labels(name))
                .withOwnerReferences(OwnerReferences.controlledBy(probe))
                .endMetadata()
                .withNewSpec()
                .withReplicas(serving.replicas == null ? 1 : serving.replicas)
                .withProgressDeadlineSeconds(PROGRESS_DEADLINE_SECONDS)
                .withNewSelector().withMatchLabels(ProbeNames.selector(name)).endSelector()
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
                // GPU replicas: replace one at a time rather than surge, which would need a spare GPU.
                .withMaxSurge(new IntOrString(gpus > 0 ? 0 : 1))
                .withMaxUnavailable(new IntOrString(gpus > 0 ? 1 : 0))
                .endRollingUpdate().endStrategy()
                .withNewTemplate()
                .withNewMetadata().withLabels(ProbeNames.labels(name)).withAnnotations(podAnnotations).endMetadata()
                .withNewSpec()
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withSecurityContext(SecurityDefaults.pod(settings.runAsUser()))
                .withNodeSelector(nodeSelector.isEmpty() ? null : nodeSelector)
                .withTolerations(placement.tolerations().isEmpty() ? null : placement.tolerations())
                .withAffinity(placement.affinity())
                .withContainers(container(probe, serving, gpus, mounts))
                .withVolumes(volumes)
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private Container container(ProbeModel probe, ServingSpec serving, int gpus, List<VolumeMount> mounts) {
        Map<String, Quantity> requests = new LinkedHashMap<>();
        Map<String, Quantity> limits = new LinkedHashMap<>();
        requests.put("cpu", new Quantity(CPU_REQUEST));
        requests.put("memory", new Quantity(MEMORY_REQUEST));
        limits.put("memory", new Quantity(MEMORY_LIMIT));
        if (gpus > 0) {
            // Extended resources cannot be overcommitted: request and limit must be equal.
            requests.put(GPU_RESOURCE, new Quantity(String.valueOf(gpus)));
            limits.put(GPU_RESOURCE, new Quantity(String.valueOf(gpus)));
        }
        return new ContainerBuilder()
                .withName(ProbeNames.CONTAINER)
                .withImage(serving.image != null && !serving.image.isBlank() ? serving.image : defaultImage)
                .withCommand(command(probe, serving, gpus))
                .withEnv(env())
                .addNewPort().withName("http").withContainerPort(ProbeNames.PORT).withProtocol("TCP").endPort()
                .withNewResources().withRequests(requests).withLimits(limits).endResources()
                .withVolumeMounts(mounts)
                // The server binds only after the model and heads loaded, so /healthz answering means ready.
                .withStartupProbe(healthz(10, 90)) // up to 15 minutes to load a large reference model
                .withReadinessProbe(healthz(5, 3))
                .withLivenessProbe(healthz(20, 3))
                .withSecurityContext(SecurityDefaults.container(true))
                .build();
    }

    static List<String> command(ProbeModel probe, ServingSpec serving, int gpus) {
        List<String> cmd = new ArrayList<>(List.of("java", "-cp", CLASSPATH, MAIN_CLASS,
                // the Service reaches it on the pod IP; the server itself defaults to loopback
                "--model", ProbeConfigMapBuilder.MOUNT_PATH, "--host", "0.0.0.0", "--port", String.valueOf(ProbeNames.PORT),
                "--device", device(serving, gpus)));
        if (serving.maxBatchTokens != null) {
            cmd.addAll(List.of("--token-budget", String.valueOf(serving.maxBatchTokens)));
        }
        if (serving.maxRequestBytes != null) {
            cmd.addAll(List.of("--max-request-bytes", String.valueOf(serving.maxRequestBytes)));
        }
        if (probe.getSpec().trajectory != null && probe.getSpec().trajectory.maxTurns != null) {
            cmd.addAll(List.of("--max-turns", String.valueOf(probe.getSpec().trajectory.maxTurns)));
        }
        return cmd;
    }

    /** Without a GPU, "auto" is pinned to cpu: the pod has no device to probe for. */
    static String device(ServingSpec serving, int gpus) {
        Device d = serving.device == null ? Device.AUTO : serving.device;
        if (gpus == 0 && d == Device.AUTO) {
            return "cpu";
        }
        return ProbeConfigMapBuilder.wire(d);
    }

    static int gpus(ProbeModel probe) {
        ServingSpec s = probe.getSpec().serving;
        return s == null || s.gpus == null ? 1 : s.gpus; // the CRD default is one GPU per replica
    }

    private static List<EnvVar> env() {
        return List.of(
                // The model's weights live outside the Java heap (ONNX Runtime), so leave room for them.
                new EnvVar("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=40 -Djava.io.tmpdir=/tmp", null),
                new EnvVar("HOME", "/tmp", null),
                new EnvVar("DJL_CACHE_DIR", "/tmp/djl", null));
    }

    private static Probe healthz(int periodSeconds, int failureThreshold) {
        return new ProbeBuilder().withNewHttpGet().withPath("/healthz").withPort(new IntOrString("http")).endHttpGet()
                .withPeriodSeconds(periodSeconds).withFailureThreshold(failureThreshold).withTimeoutSeconds(3).build();
    }

    private static VolumeMount mount(String name, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(readOnly).build();
    }
}
