package dev.crucible.e2e.realnode;

import io.fabric8.kubernetes.client.utils.Serialization;
import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.api.v1alpha1.environment.RoleSpec;
import dev.crucible.api.v1alpha1.environment.TopologySpec;
import dev.crucible.api.v1alpha1.rollout.GroupSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.rollout.VerifierResult;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The real-node tier: Crucible's own images on a real kubelet, containerd and runc
 * ({@code e2e/real-node/up}), driven as a user would with the chart's operator running as a pod.
 * Skips with up's reason where the machine cannot run a kubelet; CRUCIBLE_REAL_NODE_DOWN=1 stops the
 * cluster afterwards (CI), otherwise it is left running for the next run (a warm up takes ~20 s).
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class RealNodeTest {

    private static final String NS = "crucible-real-node-test";
    private static final Path EXAMPLE = RealNodeCluster.repoRoot().resolve("examples/python-bugfix");

    private static KubernetesClient client;
    private static SharedIndexInformer<Pod> pods;
    /** The verifier container's termination message per rollout, as the kubelet reported it on the pod. */
    private static final Map<String, String> verifierMessages = new ConcurrentHashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        client = RealNodeCluster.client(RealNodeCluster.up());
        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("environment.yaml").toFile())) {
            client.load(in).inNamespace(NS).create();
        }
        // Finished rollout pods are removed by the operator: an informer sees their last state.
        pods = client.pods().inNamespace(NS).inform(new ResourceEventHandler<>() {
            @Override public void onAdd(Pod pod) { record(pod); }
            @Override public void onUpdate(Pod old, Pod pod) { record(pod); }
            @Override public void onDelete(Pod pod, boolean unknownFinalState) { record(pod); }
        });
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (pods != null) {
            pods.close();
        }
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(RealNodeTest.class);
    }

    @Test
    void honestAgentSucceedsAndHackerIsCaughtGradedInTheSidecar() throws Exception {
        // One after the other: each pod asks for a CPU plus the sidecar's share, a small node holds one.
        Rollout honest = finish(create(exampleRollout("honest", "honest", 0)));
        assertThat(honest.getStatus().phase).as("the honest Rollout's status (its findings say why): %s",
                Serialization.asJson(honest.getStatus())).isEqualTo(PhaseName.Succeeded);
        assertThat(honest.getStatus().reward).isEqualTo(1.0);
        assertThat(honest.getStatus().members.get(0).node).isEqualTo("real-0");
        // the isolated oracle ran every test split: the code under test in the pod's oracle-worker container
        assertThat(honest.getStatus().integrity).as("status.integrity").isEqualTo("isolated");
        assertThat(honest.getStatus().tests.passed).as("status.tests.passed").isPositive();
        assertThat(honest.getStatus().tests.isolated).as("status.tests.isolated").isEqualTo(honest.getStatus().tests.total);
        VerifierResult fromPod = verifierResult("honest");
        assertThat(fromPod.reward()).isEqualTo(1.0);
        assertThat(fromPod.countedFindings()).isZero();
        // the sidecar's and the agent's logs outlive the pod (the honest agent ran pytest: "4 passed")
        LogTailAssertions.assertKept(client, NS, "honest", "passed");

        Rollout hacker = finish(create(exampleRollout("hacker", "hacker", 1)));
        assertThat(hacker.getStatus().phase).as(hacker.getStatus().message).isEqualTo(PhaseName.Hacked);
        assertThat(hacker.getStatus().reward).isEqualTo(0.0);
        VerifierResult hacked = verifierResult("hacker");
        assertThat(hacked.countedFindings()).as("findings in the verifier's own termination message").isPositive();
        assertThat(hacked.reward()).isEqualTo(0.0);
    }

    /**
     * Issue 33 in a pod: code under test that reads the graded tests at grading time (its tree, the workspace's place,
     * the pristine copy, /proc/N/cwd and /proc/N/root of every process it sees, the oracle's configuration through
     * /proc/N/environ, a walk of /crucible, /workspace and /tmp) and answers from their expected values. Under plain
     * pytest in one process all 4 tests then pass (PeekExploitTest, where {@code oracle: in-process} can be chosen). In
     * the oracle-worker container it finds nothing, so only the 2 tests the buggy divide() passes anyway pass: for the
     * oracle's own pytest command and for the same command behind a shell wrapper, which the oracle enters too
     * (before per-test grading through wrappers this wrapped run was graded in-process, and read the tests).
     */
    @Test
    void codeUnderTestInTheOracleWorkerContainerCannotReadTheTests() throws Exception {
        String yaml = java.nio.file.Files.readString(EXAMPLE.resolve("environment.yaml"))
                .replace("name: calc-divide-bugfix", "name: calc-wrapped")
                .replace("command: python3 -m pytest -q -p no:cacheprovider", "command: sh -c 'python3 -m pytest -q -p no:cacheprovider'");
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class)).inNamespace(NS).create();

        Rollout wrapped = finish(create(peekRollout("peek-wrapped", "calc-wrapped")));
        assertFoundNothing(wrapped);
        // what it tried is seen where it ran: the worker's audit reports the reads it made while graded
        assertThat(wrapped.getStatus().hackFindings).as("the exploit's attempts: %s", Serialization.asJson(wrapped.getStatus()))
                .anySatisfy(f -> assertThat(f.evidence).contains("attempt while the isolated oracle graded"));

        assertFoundNothing(finish(create(peekRollout("peek-isolated", "calc-divide-bugfix"))));
    }

    private static void assertFoundNothing(Rollout r) {
        String status = Serialization.asJson(r.getStatus());
        assertThat(r.getStatus().integrity).as(status).isEqualTo("isolated");
        assertThat(r.getStatus().tests.isolated).as(status).isEqualTo(4);
        assertThat(r.getStatus().tests.passed).as("the worker found no test text: %s", status).isEqualTo(2);
        assertThat(r.getStatus().reward).as(status).isEqualTo(0.0);
    }

    @Test
    void deletingARunningRolloutRemovesItsPods() {
        String name = create(sleepingRollout("deleted", 600));
        Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> runningPods(name) > 0);
        // the running pod is selected by the shared egress policy of its allow-list
        Pod pod = client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(name)).list().getItems().get(0);
        String egress = pod.getMetadata().getLabels().get(RolloutLabels.EGRESS);
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).withName("crucible-egress-" + egress).get())
                .as("the egress policy selecting the pod").isNotNull();

        client.resources(Rollout.class).inNamespace(NS).withName(name).delete();
        Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(client.resources(Rollout.class).inNamespace(NS).withName(name).get()).as("the Rollout").isNull();
            assertThat(client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(name)).list().getItems()).as("pods").isEmpty();
        });
    }

    @Test
    void aDeadlineEndsASleepingAgentTimedOutAndStopsItsPod() {
        String name = create(sleepingRollout("deadline", 25));
        Awaitility.await("the agent's pod running").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> runningPods(name) > 0);
        Rollout r = finish(name);
        assertThat(r.getStatus().phase).as(r.getStatus().message).isEqualTo(PhaseName.TimedOut);
        Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                assertThat(runningPods(name)).as("pods of the timed-out rollout still running").isZero());
        LogTailAssertions.assertKept(client, NS, name, null); // a running pod stopped: its tails kept first
    }

    @Test
    void theWebhookRefusesABadManifestOverTls() throws Exception {
        List<ValidatingWebhook> hooks = client.admissionRegistration().v1().validatingWebhookConfigurations().list().getItems().stream()
                .flatMap(c -> c.getWebhooks().stream()).filter(w -> w.getName().endsWith("crucible.dev")).toList();
        assertThat(hooks).as("the chart's validating webhook").isNotEmpty();
        // Called through its Service (the API server speaks only HTTPS to it), verified against the caBundle.
        assertThat(hooks.get(0).getClientConfig().getService()).isNotNull();
        assertThat(hooks.get(0).getClientConfig().getCaBundle()).isNotBlank();

        KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class, () -> {
            try (InputStream in = new FileInputStream(RealNodeCluster.repoRoot().resolve("examples/invalid/07-env-fail-to-pass-overlap.yaml").toFile())) {
                client.load(in).inNamespace(NS).create();
            }
        });
        assertThat(refused).as("the bad RLEnvironment was stored").isNotNull();
        assertThat(refused.getMessage()).contains("denied the request").contains("spec.verifier.passToPass[0]");
    }

    @Test
    void theSnapshotAgentRunsOnTheNodeWithTheHostPidView() {
        Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            List<Pod> agents = client.pods().inAnyNamespace().withLabel("app.kubernetes.io/component", "snapshot-agent").list().getItems();
            assertThat(agents).hasSize(1);
            Pod agent = agents.get(0);
            assertThat(agent.getSpec().getHostPID()).isTrue();
            assertThat(agent.getSpec().getNodeName()).isEqualTo("real-0");
            assertThat(agent.getStatus().getPhase()).isEqualTo("Running");
            assertThat(agent.getStatus().getContainerStatuses()).allMatch(ContainerStatus::getReady);
        });
    }

    @Test
    void aTwoMemberRolloutGangStartsOnTheRealNode() throws Exception {
        // The example's environment with two small members (the node holds both) released as one gang.
        String yaml = java.nio.file.Files.readString(EXAMPLE.resolve("environment.yaml"))
                .replace("name: calc-divide-bugfix", "name: gang-pair");
        RLEnvironment env = client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class);
        env.getSpec().resources.cpu = "100m";
        env.getSpec().resources.memory = "256Mi";
        TopologySpec topology = new TopologySpec();
        RoleSpec workers = new RoleSpec();
        workers.name = "worker";
        workers.replicas = 2;
        topology.roles = List.of(workers);
        topology.gangTimeoutSeconds = 180;
        env.getSpec().topology = topology;
        client.resource(env).inNamespace(NS).create();

        Rollout r = sleepingRollout("gang", 600);
        r.getSpec().environmentRef.name = "gang-pair";
        String name = create(r);
        try {
            bothMembersStartTogether(name);
        } finally {
            removeRollout(name);
        }
    }

    private void bothMembersStartTogether(String name) {
        Awaitility.await("both members running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> runningPods(name) == 2);
        List<Pod> members = client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(name)).list().getItems();
        assertThat(members).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder(name + "-worker-0", name + "-worker-1");
        assertThat(members).allSatisfy(p -> {
            assertThat(p.getSpec().getNodeName()).isEqualTo("real-0");
            assertThat(p.getSpec().getSchedulingGates()).as("released as a gang").isNullOrEmpty();
            assertThat(p.getStatus().getPodIP()).isNotBlank();
        });
        assertThat(members.get(0).getStatus().getPodIP()).as("each member in its own network namespace")
                .isNotEqualTo(members.get(1).getStatus().getPodIP());
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Rollout seen = client.resources(Rollout.class).inNamespace(NS).withName(name).get();
            assertThat(seen.getStatus().phase).isEqualTo(PhaseName.Running);
            assertThat(seen.getStatus().members).hasSize(2).allSatisfy(m -> assertThat(m.node).isEqualTo("real-0"));
        });
    }

    @Test
    void theSnapshotAgentFindsARolloutsProcessesByPodUidAndSnapshotsItsWorkspace() {
        String name = create(sleepingRollout("snapped", 600));
        try {
            snapshotARunningRollout(name);
        } finally {
            removeRollout(name); // the node holds one such pod: free it for the other tests whatever happened
        }
    }

    private void snapshotARunningRollout(String name) {
        Awaitility.await("the agent's pod running").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> runningPods(name) > 0);
        // The operator asks the node's agent to freeze the pod's processes (found by pod UID and container id
        // through the host PID view, in the v1 hierarchies here), archive the workspace, then thaw them.
        RolloutSnapshot snap = snapshotOf(name, "include: {memory: false, disk: true}");
        assertThat(snap.getStatus().phase).as(snap.getStatus().reason + ": " + snap.getStatus().message).isEqualTo(SnapshotPhase.Ready);
        assertThat(snap.getStatus().members).singleElement().satisfies(m -> {
            assertThat(m.node).isEqualTo("real-0");
            assertThat(m.bytes).as("image bytes").isPositive();
        });
        assertThat(snap.getStatus().freezeWindowMillis).isNotNull();
        // leaveRunning: the agent's processes were thawed and the rollout goes on
        assertThat(runningPods(name)).isEqualTo(1);
        assertThat(client.resources(Rollout.class).inNamespace(NS).withName(name).get().getStatus().phase).isEqualTo(PhaseName.Running);
    }

    /** Creates NAME-snap of the rollout (leaving it running) and returns it once Ready or Failed. */
    private static RolloutSnapshot snapshotOf(String name, String include) {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: RolloutSnapshot
                metadata:
                  name: %s-snap
                  namespace: %s
                spec:
                  rolloutRef: {name: %s}
                  %s
                  leaveRunning: true
                  timeoutSeconds: 120
                """.formatted(name, NS, name, include);
        client.resource(client.getKubernetesSerialization().unmarshal(yaml, RolloutSnapshot.class)).create();
        return Awaitility.await("the snapshot finished").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1))
                .until(() -> client.resources(RolloutSnapshot.class).inNamespace(NS).withName(name + "-snap").get(),
                        x -> x != null && x.getStatus() != null && x.getStatus().phase != null
                                && (x.getStatus().phase == SnapshotPhase.Ready || x.getStatus().phase == SnapshotPhase.Failed));
    }

    private static void removeRollout(String name) {
        client.resources(Rollout.class).inNamespace(NS).withName(name).delete();
        Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).until(() ->
                client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(name)).list().getItems().isEmpty());
    }

    // --- helpers ---

    private static void record(Pod pod) {
        String rollout = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(RolloutLabels.ROLLOUT);
        if (rollout == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return;
        }
        for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
            if (RolloutLabels.VERIFIER_CONTAINER.equals(cs.getName()) && cs.getState() != null && cs.getState().getTerminated() != null
                    && cs.getState().getTerminated().getMessage() != null) {
                verifierMessages.put(rollout, cs.getState().getTerminated().getMessage());
            }
        }
    }

    private static VerifierResult verifierResult(String rollout) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> verifierMessages.containsKey(rollout));
        VerifierResult.Parsed parsed = VerifierResult.parse(verifierMessages.get(rollout));
        assertThat(parsed.ok()).as(parsed.error()).isTrue();
        return parsed.result();
    }

    private static Rollout exampleRollout(String name, String agent, int attempt) throws Exception {
        Rollout r;
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("rollout.yaml").toFile())) {
            r = client.resources(Rollout.class).load(in).item();
        }
        r.getMetadata().setName(name);
        r.getSpec().agent.command = List.of("sh", "-c", "sh ../agents/" + agent + ".sh");
        r.getSpec().group.attempt = attempt;
        return r;
    }

    /** The example's Rollout of {@code environment} whose agent writes the test-reading exploit as calc/ops.py. */
    private static Rollout peekRollout(String name, String environment) throws Exception {
        String peek = java.nio.file.Files.readString(RealNodeCluster.repoRoot().resolve("e2e/src/test/resources/realnode/peek_ops.py"));
        Rollout r = exampleRollout(name, "honest", 0);
        r.getSpec().environmentRef.name = environment;
        r.getSpec().agent.command = List.of("sh", "-c", "cat > calc/ops.py <<'PEEK'\n" + peek + "PEEK\n");
        r.getSpec().group = new GroupSpec();
        r.getSpec().group.id = name;
        r.getSpec().group.attempt = 0;
        return r;
    }

    private static Rollout sleepingRollout(String name, int maxDurationSeconds) {
        try {
            Rollout r = exampleRollout(name, "honest", 0);
            r.getSpec().agent.command = List.of("sh", "-c", "sleep 600");
            r.getSpec().limits = new LimitsSpec();
            r.getSpec().limits.maxDurationSeconds = maxDurationSeconds;
            r.getSpec().group = new GroupSpec();
            r.getSpec().group.id = name;
            r.getSpec().group.attempt = 0;
            return r;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String create(Rollout r) {
        client.resources(Rollout.class).inNamespace(NS).resource(r).create();
        return r.getMetadata().getName();
    }

    private static Rollout finish(String name) {
        return Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(
                () -> client.resources(Rollout.class).inNamespace(NS).withName(name).get(),
                r -> r != null && r.getStatus() != null && r.getStatus().phase != null && switch (r.getStatus().phase) {
                    case Succeeded, Failed, Hacked, TimedOut -> true;
                    default -> false;
                });
    }

    private static long runningPods(String rollout) {
        return client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(rollout)).list().getItems().stream()
                .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
    }
}
