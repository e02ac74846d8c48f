package dev.crucible.e2e;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A Rollout's life on a real API server, with kube-scheduler binding and kwok running its pods. */
class RolloutLifecycleTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    static Rollout get(String ns, String name) {
        return client.resources(Rollout.class).inNamespace(ns).withName(name).get();
    }

    static PhaseName phase(String ns, String name) {
        Rollout r = get(ns, name);
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    /**
     * A namespace deleted and made again with the same environment (its ConfigMap has the same name, its
     * content being the same): the operator, which remembers the shared objects it wrote, writes them again
     * at once for the new environment object instead of leaving the new pods waiting for a ConfigMap that is
     * gone. Without the namespace controller here, deleting the environment and its objects stands in.
     */
    @Test
    void anEnvironmentMadeAgainGetsItsSharedObjectsAtOnce() {
        String ns = SharedCluster.namespace("remade");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "calc-a0", "calc", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-a0") == PhaseName.Running);
        Pod first = Manifests.podsOf(client, ns, "calc-a0").get(0);
        String configMap = first.getSpec().getVolumes().stream().filter(v -> v.getProjected() != null).findFirst().orElseThrow()
                .getProjected().getSources().get(0).getConfigMap().getName();

        client.resources(Rollout.class).inNamespace(ns).withName("calc-a0").delete();
        client.configMaps().inNamespace(ns).withName(configMap).delete();
        client.secrets().inNamespace(ns).withName("crucible-env-api").delete();
        client.resources(dev.crucible.api.v1alpha1.RLEnvironment.class).inNamespace(ns).withName("calc").delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.configMaps().inNamespace(ns).withName(configMap).get() == null
                && client.resources(dev.crucible.api.v1alpha1.RLEnvironment.class).inNamespace(ns).withName("calc").get() == null);

        Manifests.environment(client, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "calc-a1", "calc", "limits: {maxDurationSeconds: 600}");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-a1") == PhaseName.Running);
        assertThat(client.configMaps().inNamespace(ns).withName(configMap).get()).as("the environment's ConfigMap, written again").isNotNull();
        assertThat(client.secrets().inNamespace(ns).withName("crucible-env-api").get()).as("the namespace's API token").isNotNull();
    }

    @Test
    void simpleRolloutRunsAndRecordsTheVerifierReward() {
        String ns = SharedCluster.namespace("simple");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "calc-a0", "calc", "limits: {maxDurationSeconds: 600, maxTurns: 50}");

        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-a0") == PhaseName.Running);
        List<Pod> pods = Manifests.podsOf(client, ns, "calc-a0");
        assertThat(pods).singleElement().satisfies(pod -> {
            assertThat(pod.getMetadata().getName()).isEqualTo("calc-a0-main-0");
            assertThat(pod.getSpec().getNodeName()).startsWith("cpu-");
            assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
            assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
            assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
            assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
            for (Container c : pod.getSpec().getContainers()) {
                assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
                assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            }
            assertThat(pod.getSpec().getContainers()).extracting(Container::getName).containsExactly("agent", "verifier", "grading", "oracle-worker");
            assertThat(pod.getSpec().getContainers().get(1).getImage()).isEqualTo(SharedCluster.SETTINGS.verifierImage());
            assertThat(pod.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getKind()).isEqualTo("Rollout"));
        });
        Pod pod = pods.get(0);
        // the environment's ConfigMap is shared by its Rollouts (one per version, owned by the environment);
        // the Rollout's own spec reaches the sidecar from the pod's annotation through the same volume
        var config = pod.getSpec().getVolumes().stream().filter(v -> v.getProjected() != null).findFirst().orElseThrow();
        var cm = client.configMaps().inNamespace(ns).withName(config.getProjected().getSources().get(0).getConfigMap().getName()).get();
        assertThat(cm.getData().get("environment.yaml")).contains("kind: RLEnvironment").contains("name: calc");
        assertThat(cm.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("RLEnvironment"));
        assertThat(pod.getMetadata().getAnnotations().get("crucible.dev/rollout-yaml")).contains("name: calc-a0").contains("maxTurns: 50");
        // the environment API's token: one Secret per namespace, made once, never changed
        var token = client.secrets().inNamespace(ns).withName("crucible-env-api").get();
        assertThat(token.getImmutable()).isTrue();
        assertThat(new String(java.util.Base64.getDecoder().decode(token.getData().get("token")))).hasSize(43);
        // egress: the policy that selects this pod by its label allows only the environment's list
        String egress = pod.getMetadata().getLabels().get("crucible.dev/egress");
        var np = client.network().v1().networkPolicies().inNamespace(ns).withName("crucible-egress-" + egress).get();
        assertThat(np.getSpec().getPodSelector().getMatchLabels()).containsEntry("crucible.dev/egress", egress);
        assertThat(np.getSpec().getPolicyTypes()).containsExactly("Egress");
        assertThat(np.getSpec().getEgress()).singleElement()
                .satisfies(e -> assertThat(e.getTo().get(0).getIpBlock().getCidr()).isEqualTo("10.1.0.0/16"));
        assertThat(get(ns, "calc-a0").getMetadata().getFinalizers()).as("no finalizer: no write before the pod").isEmpty();

        Rollout running = get(ns, "calc-a0");
        assertThat(running.getStatus().members).singleElement().satisfies(m -> assertThat(m.node).startsWith("cpu-"));
        assertThat(running.getStatus().timings.createToPodsMillis).isNotNull();
        assertThat(running.getStatus().observedGeneration).isEqualTo(running.getMetadata().getGeneration());

        Manifests.verifierExits(client, ns, "calc-a0-main-0", """
                {"reward":1.0,"verdict":"pass","tests":{"passed":2,"failed":0,"skipped":0,"total":2,
                "failToPassPassed":1,"failToPassTotal":1},"hackFindings":[],"turns":12,"phase":"Succeeded"}""");
        await().atMost(Duration.ofSeconds(30)).until(() -> phase(ns, "calc-a0") == PhaseName.Succeeded);
        Rollout done = get(ns, "calc-a0");
        assertThat(done.getStatus().reward).isEqualTo(1.0);
        assertThat(done.getStatus().verdict).isEqualTo("pass");
        assertThat(done.getStatus().tests.failToPassPassed).isEqualTo(1);
        assertThat(done.getStatus().turns).isEqualTo(12);
        assertThat(done.getStatus().verifierReport).contains("\"failToPassTotal\":1");
        assertThat(done.getStatus().reason).isEqualTo("Verified");
        assertThat(done.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Progressing");
            assertThat(c.getStatus()).isEqualTo("False");
        });
        // Running and Succeeded are in the status; an Event each would be a write per Rollout on the hot path
        assertThat(client.v1().events().inNamespace(ns).list().getItems())
                .filteredOn(e -> "calc-a0".equals(e.getInvolvedObject().getName())).as("Events about a Rollout that went well")
                .isEmpty();
    }

    @Test
    void hackFindingsEndTheRolloutHacked() {
        String ns = SharedCluster.namespace("hack");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "calc-h", "calc", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-h") == PhaseName.Running);
        Manifests.verifierExits(client, ns, "calc-h-main-0", """
                {"reward":0.0,"verdict":"fail","hackFindings":[{"detector":"protected-path-modified","severity":"high",
                "path":"tests/test_ops.py","evidence":"sha256 changed","action":"terminate"}],"turns":3,"phase":"Hacked"}""");
        await().atMost(Duration.ofSeconds(30)).until(() -> phase(ns, "calc-h") == PhaseName.Hacked);
        Rollout r = get(ns, "calc-h");
        assertThat(r.getStatus().hackFindings).singleElement().satisfies(f -> assertThat(f.path).isEqualTo("tests/test_ops.py"));
        assertThat(r.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("HackDetected");
            assertThat(c.getStatus()).isEqualTo("True");
        });
    }

    @Test
    void deadlineEndsTheRolloutTimedOutAndStopsItsPods() {
        String ns = SharedCluster.namespace("deadline");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(client, ns, "calc-slow", "calc", "limits: {maxDurationSeconds: 4}");
        // kwok's containers never end: past the deadline the operator first waits for the verifier's result
        // (VerifierFinishing, up to 45 s), then calls it TimedOut
        await().atMost(Duration.ofSeconds(30)).until(() -> "VerifierFinishing".equals(reason(ns, "calc-slow")));
        assertThat(phase(ns, "calc-slow").isTerminal()).isFalse();
        await().atMost(Duration.ofSeconds(90)).until(() -> phase(ns, "calc-slow") == PhaseName.TimedOut);
        assertThat(get(ns, "calc-slow").getStatus().reason).isEqualTo("DeadlineExceeded");
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "calc-slow").stream()
                .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
    }

    @Test
    void cpuRolloutsNeverLandOnGpuNodes() {
        String ns = SharedCluster.namespace("cpu");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        for (int i = 0; i < 8; i++) {
            Manifests.rollout(client, ns, "cpu-" + i, "calc", "");
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Pod> pods = client.pods().inNamespace(ns).list().getItems();
            return pods.size() == 8 && pods.stream().allMatch(p -> p.getSpec().getNodeName() != null);
        });
        assertThat(client.pods().inNamespace(ns).list().getItems())
                .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).startsWith("cpu-"));
    }

    @Test
    void deletingARolloutRemovesItsPods() {
        String ns = SharedCluster.namespace("delete");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        Manifests.rollout(client, ns, "calc-del", "calc", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-del") == PhaseName.Running);
        client.resources(Rollout.class).inNamespace(ns).withName("calc-del").delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "calc-del") == null);
        // this tier runs no garbage collector: the operator deletes the pods on the Rollout's delete event
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "calc-del").isEmpty());
    }

    @Test
    void aFinalizerAnEarlierVersionAddedIsReleased() {
        String ns = SharedCluster.namespace("legacy");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        Manifests.rollout(client, ns, "calc-old", "calc", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-old") == PhaseName.Running);
        client.resources(Rollout.class).inNamespace(ns).withName("calc-old")
                .edit(r -> { r.getMetadata().setFinalizers(new java.util.ArrayList<>(List.of("rollouts.crucible.dev/finalizer"))); return r; });
        client.resources(Rollout.class).inNamespace(ns).withName("calc-old").delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "calc-old") == null);
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "calc-old").isEmpty());
    }

    @Test
    void rolloutWaitsForItsEnvironment() {
        String ns = SharedCluster.namespace("noenv");
        Manifests.rollout(client, ns, "orphan", "later", "");
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "orphan").getStatus() != null
                && "EnvironmentNotFound".equals(get(ns, "orphan").getStatus().reason));
        assertThat(phase(ns, "orphan")).isEqualTo(PhaseName.Pending);
        Manifests.environment(client, ns, "later", "resources: {cpu: 100m, memory: 128Mi}");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "orphan") == PhaseName.Running);
    }

    @Test
    void podRefusedByAdmissionIsReportedWithTheServersReason() {
        String ns = SharedCluster.namespace("refused");
        Manifests.environment(client, ns, "kata", "resources: {cpu: 100m, memory: 128Mi}");
        client.resources(dev.crucible.api.v1alpha1.RLEnvironment.class).inNamespace(ns).withName("kata")
                .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"spec\":{\"sandbox\":{\"runtimeClassName\":\"kata-missing\"}}}");
        Manifests.rollout(client, ns, "kata-r", "kata", "");
        await().atMost(Duration.ofSeconds(30)).until(() -> get(ns, "kata-r").getStatus() != null
                && "PodRejected".equals(get(ns, "kata-r").getStatus().reason));
        assertThat(get(ns, "kata-r").getStatus().message).contains("kata-missing");
    }

    private String reason(String ns, String name) {
        Rollout r = get(ns, name);
        return r == null || r.getStatus() == null ? null : r.getStatus().reason;
    }
}
