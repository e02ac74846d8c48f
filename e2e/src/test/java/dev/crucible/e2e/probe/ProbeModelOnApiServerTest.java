package dev.crucible.e2e.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.probe.ProbeModelReconciler;
import dev.crucible.controllers.probe.ProbeNames;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ProbeModel reconciler against a real kube-apiserver: the example probe becomes a ConfigMap,
 * a Service and a GPU Deployment. There is no kube-controller-manager in this tier, so the test plays
 * the Deployment controller (writes its status) and checks owner references instead of garbage
 * collection. The reconciler runs in its own JOSDK Operator beside the shared one.
 */
class ProbeModelOnApiServerTest {

    static final String IMAGE = "crucible/probe-server:test";
    static final String NAME = "swe-task-learnability";
    static KubernetesClient client;
    static KubernetesClient operatorClient;
    static Operator operator;

    @BeforeAll
    static void start() {
        LocalCluster cluster = SharedCluster.cluster();
        client = cluster.client();
        operatorClient = cluster.newClient();
        operator = new Operator(o -> o.withKubernetesClient(operatorClient).withCloseClientOnStop(false));
        operator.register(new ProbeModelReconciler(SharedCluster.SETTINGS,
                new ControllerMetrics(new SimpleMeterRegistry()), IMAGE));
        operator.start();
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.stop();
            operatorClient.close();
        }
    }

    /** examples/probe/probemodel.yaml as a user would apply it, in the given namespace. */
    static ProbeModel example(String ns) throws Exception {
        Path root = Path.of(System.getProperty("crucible.repo.root", "..")).toAbsolutePath().normalize();
        String yaml = Files.readString(root.resolve("examples/probe/probemodel.yaml"));
        ProbeModel p = client.getKubernetesSerialization().unmarshal(yaml, ProbeModel.class);
        p.getMetadata().setNamespace(ns);
        return p;
    }

    static ProbeModel get(String ns, String name) {
        return client.resources(ProbeModel.class).inNamespace(ns).withName(name).get();
    }

    static String phase(String ns, String name) {
        ProbeModel p = get(ns, name);
        return p == null || p.getStatus() == null ? null : p.getStatus().phase;
    }

    static Condition condition(ProbeModel p, String type) {
        return p.getStatus().conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
    }

    /** What the Deployment controller would write once the pods are up. */
    static void deploymentReports(String ns, String name, int replicas, int ready) {
        client.apps().deployments().inNamespace(ns).withName(name).editStatus(d -> {
            d.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                    .withObservedGeneration(d.getMetadata().getGeneration())
                    .withReplicas(replicas).withUpdatedReplicas(replicas)
                    .withReadyReplicas(ready).withAvailableReplicas(ready).build());
            return d;
        });
    }

    static void ownedBy(HasMetadata object, ProbeModel owner) {
        assertThat(object.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("ProbeModel");
            assertThat(o.getName()).isEqualTo(owner.getMetadata().getName());
            assertThat(o.getUid()).isEqualTo(owner.getMetadata().getUid());
            assertThat(o.getController()).isTrue();
            assertThat(o.getBlockOwnerDeletion()).isTrue();
        });
    }

    @Test
    void exampleProbeIsServedOnGpuNodesAndReportsReady() throws Exception {
        String ns = SharedCluster.namespace("probe");
        ProbeModel created = client.resource(example(ns)).create();
        String server = ProbeNames.serverName(NAME);

        await().atMost(Duration.ofSeconds(30)).until(() -> client.apps().deployments().inNamespace(ns).withName(server).get() != null);
        Deployment d = client.apps().deployments().inNamespace(ns).withName(server).get();
        assertThat(d.getSpec().getReplicas()).isEqualTo(2);
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true");
        assertThat(pod.getTolerations()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        var c = pod.getContainers().get(0);
        assertThat(c.getImage()).isEqualTo(IMAGE);
        assertThat(c.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getCommand()).containsSequence("--model", "/etc/crucible/probe").containsSequence("--device", "auto");
        assertThat(pod.getVolumes()).filteredOn(v -> v.getPersistentVolumeClaim() != null).singleElement()
                .satisfies(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("probe-models"));
        ownedBy(d, created);

        Service svc = client.services().inNamespace(ns).withName(server).get();
        assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(svc.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(8080));
        ownedBy(svc, created);
        var cm = client.configMaps().inNamespace(ns).withName(ProbeNames.configMapName(NAME)).get();
        assertThat(cm.getData().get("probe.json")).contains("\"/models/qwen2-tiny/model.onnx\"")
                .contains("\"/models/heads/mlp.json\"").contains("\"turnAggregation\" : \"mean\"");
        ownedBy(cm, created);

        // Nothing runs the Deployment controller here: until someone reports replicas, nothing serves.
        await().atMost(Duration.ofSeconds(30)).until(() -> "Pending".equals(phase(ns, NAME)));
        ProbeModel pending = get(ns, NAME);
        assertThat(condition(pending, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(pending, "Trained").getReason()).isEqualTo("NotTrained");

        deploymentReports(ns, server, 2, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Ready".equals(phase(ns, NAME)));
        ProbeModel ready = get(ns, NAME);
        assertThat(ready.getStatus().endpoint).isEqualTo("http://" + server + "." + ns + ".svc:8080");
        assertThat(ready.getStatus().readyReplicas).isEqualTo(2);
        assertThat(ready.getStatus().replicas).isEqualTo(2);
        assertThat(ready.getStatus().observedGeneration).isEqualTo(ready.getMetadata().getGeneration());
        assertThat(condition(ready, "Ready").getStatus()).isEqualTo("True");
        assertThat(condition(ready, "Progressing").getReason()).isEqualTo("RolloutComplete");
        // Re-applying unchanged objects must be a no-op on the server, or every apply would wake the informer again.
        String version = client.apps().deployments().inNamespace(ns).withName(server).get().getMetadata().getResourceVersion();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> version.equals(
                client.apps().deployments().inNamespace(ns).withName(server).get().getMetadata().getResourceVersion()));

        // The training Job's report, labelled so the operator sees it at once.
        client.resource(new ConfigMapBuilder().withNewMetadata().withName(NAME + "-training-report").withNamespace(ns)
                .addToLabels(ProbeNames.PROBE_MODEL, NAME).endMetadata()
                .addToData("report.json", """
                        {"metrics":{"balancedAccuracy":0.712,"auc":0.781,"f1":0.41,"ece":0.052,"spearman":0.33,
                        "rewardVariance":1.7,"selected":{"layer":2,"pooling":"mean_last_half","architecture":"mlp"},
                        "trainedAt":"2026-11-21T10:00:00Z"}}""").build()).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, NAME).getStatus().training != null);
        var training = get(ns, NAME).getStatus().training;
        assertThat(training.balancedAccuracy).isEqualTo(0.712);
        assertThat(training.selected.architecture).isEqualTo("mlp");
        assertThat(condition(get(ns, NAME), "Trained").getStatus()).isEqualTo("True");

        // A spec change reaches the Deployment (server-side apply) and rolls the pods (new probe.json hash).
        String hash = d.getSpec().getTemplate().getMetadata().getAnnotations().get(ProbeNames.CONFIG_HASH);
        client.resources(ProbeModel.class).inNamespace(ns).withName(NAME).edit(p -> {
            p.getSpec().layer = 3;
            p.getSpec().serving.replicas = 3;
            return p;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Deployment now = client.apps().deployments().inNamespace(ns).withName(server).get();
            return now.getSpec().getReplicas() == 3
                    && !hash.equals(now.getSpec().getTemplate().getMetadata().getAnnotations().get(ProbeNames.CONFIG_HASH));
        });
        assertThat(client.configMaps().inNamespace(ns).withName(ProbeNames.configMapName(NAME)).get()
                .getData().get("probe.json")).contains("\"layer\" : 3");
        deploymentReports(ns, server, 3, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Degraded".equals(phase(ns, NAME)));
        assertThat(condition(get(ns, NAME), "Ready").getMessage()).contains("2/3");

        // No garbage collector here: the owner references are what removes the objects in a real cluster,
        // and without a finalizer the ProbeModel itself goes at once.
        client.resource(get(ns, NAME)).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, NAME) == null);
        ownedBy(client.apps().deployments().inNamespace(ns).withName(server).get(), created);
    }

    @Test
    void aDeploymentTheApiServerRefusesFailsTheProbeWithTheReason() throws Exception {
        String ns = SharedCluster.namespace("probe-bad");
        ProbeModel p = example(ns);
        p.getMetadata().setName("bad-selector");
        p.getSpec().serving.gpus = 0;
        // The CRD does not check label syntax; the Deployment's validation does.
        p.getSpec().serving.nodeSelector = java.util.Map.of("pool", "not a label value!");
        client.resource(p).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> "Failed".equals(phase(ns, "bad-selector")));
        ProbeModel failed = get(ns, "bad-selector");
        assertThat(condition(failed, "Ready").getReason()).isEqualTo("DeploymentRejected");
        assertThat(condition(failed, "Ready").getMessage()).contains("nodeSelector");
        assertThat(client.apps().deployments().inNamespace(ns).withName(ProbeNames.serverName("bad-selector")).get()).isNull();
    }
}
