package dev.crucible.e2e.realnode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36 on the real-node tier: the chart's trace store (its own image, {@code traceStore.enabled}) on a real
 * kubelet, on a PersistentVolume. The bundled example's hacker runs as a Rollout; its sidecar streams the trajectory to
 * the store with the pod's projected writer token; the Rollout (and with it its pod) is deleted; then a reader allowed
 * to {@code get} Rollouts in the namespace reads the trajectory back from the store (the agent's {@code conftest.py},
 * the finding it caused, the grading, the outcome), and a ServiceAccount with no rights gets 403.
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class TraceStoreRealNodeTest {

    private static final String NS = "crucible-trace-store-test";
    private static final String SYSTEM_NS = "crucible-system";
    private static final String CLAIM = "trace-store-real-node";
    /** On the host (the one node): the PersistentVolume's folder, owned by the store's uid. */
    private static final Path VOLUME_DIR = Path.of("/var/lib/crucible/real-node/trace-store-volume");
    /** The node has no cluster DNS: rollout pods reach the store by its Service's pinned address: in up's 10.96.0.0/24, in the low band, which the API server assigns last. */
    private static final String STORE_IP = "10.96.0.12";
    /** The store on a claim of the test's own (a hostPath PV: this node has no provisioner), small requests (2 cores). */
    private static final String VALUES = "traceStore.enabled=true traceStore.clusterIP=" + STORE_IP
            + " traceStore.persistence.existingClaim=" + CLAIM
            + " traceStore.retention.maxBytes=805306368 traceStore.resources.requests.cpu=10m"
            + " traceStore.resources.requests.memory=128Mi";
    private static final Path EXAMPLE = RealNodeCluster.repoRoot().resolve("examples/python-bugfix");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static KubernetesClient client;
    private static String store;

    @BeforeAll
    static void installTheStore() throws Exception {
        // up waits for the operator only: the store's pod waits for the claim made next, then starts.
        client = RealNodeCluster.client(RealNodeCluster.up(VALUES));
        volumeAndClaim(client);
        Awaitility.await("the trace store's pod ready").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(2)).until(() -> {
            Deployment d = client.apps().deployments().inNamespace(SYSTEM_NS).withName("crucible-trace-store").get();
            return d != null && d.getStatus() != null && d.getStatus().getReadyReplicas() != null && d.getStatus().getReadyReplicas() == 1
                    && d.getStatus().getUpdatedReplicas() != null && d.getStatus().getUpdatedReplicas() == 1;
        });
        // Through the Service's address, as the rollout pods reach it (kube-proxy's rules serve the host too).
        store = "http://" + STORE_IP + ":8470";
        assertThat(get("/healthz", null).body()).isEqualTo("ok");

        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("environment.yaml").toFile())) {
            client.load(in).inNamespace(NS).create();
        }
        // reader: may get Rollouts here (what `kubectl get rollout` needs); stranger: an account with no role at all.
        for (String sa : List.of("reader", "stranger")) {
            client.serviceAccounts().inNamespace(NS).resource(new ServiceAccountBuilder().withNewMetadata().withName(sa).endMetadata().build()).create();
        }
        client.rbac().roles().inNamespace(NS).resource(new RoleBuilder().withNewMetadata().withName("rollout-reader").endMetadata()
                .addNewRule().withApiGroups("crucible.dev").withResources("rollouts").withVerbs("get", "list").endRule().build()).create();
        client.rbac().roleBindings().inNamespace(NS).resource(new RoleBindingBuilder().withNewMetadata().withName("rollout-reader").endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", "rollout-reader")
                .addNewSubject().withKind("ServiceAccount").withName("reader").withNamespace(NS).endSubject().build()).create();
    }

    /** A hostPath PersistentVolume bound ahead to the test's claim in the chart's namespace (kept between runs). */
    private static void volumeAndClaim(KubernetesClient admin) throws Exception {
        Files.createDirectories(VOLUME_DIR);
        Process chown = new ProcessBuilder("chown", "1000:1000", VOLUME_DIR.toString()).inheritIO().start();
        assertThat(chown.waitFor()).as("chown of " + VOLUME_DIR).isZero();
        PersistentVolume old = admin.persistentVolumes().withName(CLAIM).get();
        if (old != null && old.getStatus() != null && "Released".equals(old.getStatus().getPhase())) {
            admin.persistentVolumes().withName(CLAIM).delete();
            Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> admin.persistentVolumes().withName(CLAIM).get() == null);
            old = null;
        }
        if (old == null) {
            admin.resource(admin.getKubernetesSerialization().unmarshal("""
                    apiVersion: v1
                    kind: PersistentVolume
                    metadata: {name: %s}
                    spec:
                      capacity: {storage: 1Gi}
                      accessModes: [ReadWriteOnce]
                      persistentVolumeReclaimPolicy: Retain
                      storageClassName: ""
                      claimRef: {namespace: %s, name: %s}
                      hostPath: {path: %s, type: Directory}
                    """.formatted(CLAIM, SYSTEM_NS, CLAIM, VOLUME_DIR), PersistentVolume.class)).create();
        }
        if (admin.persistentVolumeClaims().inNamespace(SYSTEM_NS).withName(CLAIM).get() == null) {
            admin.resource(admin.getKubernetesSerialization().unmarshal("""
                    apiVersion: v1
                    kind: PersistentVolumeClaim
                    metadata: {name: %s, namespace: %s}
                    spec:
                      accessModes: [ReadWriteOnce]
                      storageClassName: ""
                      volumeName: %s
                      resources: {requests: {storage: 1Gi}}
                    """.formatted(CLAIM, SYSTEM_NS, CLAIM), PersistentVolumeClaim.class)).create();
        }
        Awaitility.await("the claim bound").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            PersistentVolumeClaim c = admin.persistentVolumeClaims().inNamespace(SYSTEM_NS).withName(CLAIM).get();
            return c.getStatus() != null && "Bound".equals(c.getStatus().getPhase());
        });
    }

    /**
     * The egress policy that selects rollout pods here (one environment: one shared policy) has a rule for exactly the
     * live store pods, in the chart's namespace, on their container port (issue 36: on a CNI that enforces policy the
     * sidecar could not ship otherwise). This node's bridge CNI enforces no NetworkPolicy, so the rule is checked
     * against the running store, not by a packet it lets through.
     */
    private static void egressPolicyLetsRolloutPodsReachTheStore() {
        var policies = client.network().v1().networkPolicies().inNamespace(NS).list().getItems();
        assertThat(policies).as("egress policies in %s", NS).singleElement();
        var toStore = policies.get(0).getSpec().getEgress().stream().filter(r -> r.getTo() != null && r.getTo().stream()
                .anyMatch(t -> t.getNamespaceSelector() != null)).toList();
        assertThat(toStore).as("rules naming a namespace: %s", policies.get(0).getSpec().getEgress()).singleElement();
        var peer = toStore.get(0).getTo().get(0);
        assertThat(peer.getNamespaceSelector().getMatchLabels()).containsExactly(java.util.Map.entry("kubernetes.io/metadata.name", SYSTEM_NS));
        var selected = client.pods().inNamespace(SYSTEM_NS).withLabels(peer.getPodSelector().getMatchLabels()).list().getItems();
        assertThat(selected).as("pods the rule selects").isNotEmpty().allSatisfy(p -> {
            assertThat(p.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "trace-store");
            assertThat(p.getSpec().getContainers().get(0).getPorts()).extracting(io.fabric8.kubernetes.api.model.ContainerPort::getContainerPort)
                    .contains(toStore.get(0).getPorts().get(0).getPort().getIntVal());
        });
        assertThat(toStore.get(0).getPorts()).singleElement().satisfies(port -> assertThat(port.getPort().getIntVal()).isEqualTo(8470));
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(TraceStoreRealNodeTest.class);
    }

    @Test
    void theHackersTrajectoryIsReadBackFromTheStoreAfterItsRolloutIsDeleted() throws Exception {
        // A new name each run: the volume is kept, and the store continues a folder of the same name.
        String name = "traced-hacker-" + Long.toString(System.currentTimeMillis() / 1000, 36);
        Rollout r;
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("rollout.yaml").toFile())) {
            r = client.resources(Rollout.class).load(in).item();
        }
        r.getMetadata().setName(name);
        r.getSpec().agent.command = List.of("sh", "-c", "sh ../agents/hacker.sh");
        client.resources(Rollout.class).inNamespace(NS).resource(r).create();
        Rollout done = Awaitility.await("the hacker's Rollout ended").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(
                () -> client.resources(Rollout.class).inNamespace(NS).withName(name).get(),
                x -> x != null && x.getStatus() != null && x.getStatus().phase != null && switch (x.getStatus().phase) {
                    case Succeeded, Failed, Hacked, TimedOut -> true;
                    default -> false;
                });
        String status = Serialization.asJson(done.getStatus());
        assertThat(done.getStatus().phase).as(status).isEqualTo(PhaseName.Hacked);
        assertThat(done.getStatus().trajectory).as(status).isNotNull();
        assertThat(done.getStatus().trajectory.complete).as("status.trajectory: %s", status).isTrue();
        assertThat(done.getStatus().trajectory.events).as(status).isPositive();
        egressPolicyLetsRolloutPodsReachTheStore();

        client.resources(Rollout.class).inNamespace(NS).withName(name).delete();
        Awaitility.await("the Rollout and its pods gone").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(client.resources(Rollout.class).inNamespace(NS).withName(name).get()).isNull();
            assertThat(client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(name)).list().getItems()).isEmpty();
        });

        String base = "/v1/namespaces/" + NS + "/rollouts/" + name;
        String reader = token("reader");
        HttpResponse<String> listed = get(base + "/segments", reader);
        assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        for (JsonNode seg : JSON.readTree(listed.body()).get("segments")) {
            HttpResponse<String> body = get(base + "/segments/" + seg.get("number").asInt(), reader);
            assertThat(body.statusCode()).as(body.body()).isEqualTo(200);
            for (String line : body.body().split("\n")) {
                if (!line.isBlank()) events.add(JSON.readTree(line));
            }
        }
        assertThat(events).as("stored events").hasSize((int) (long) done.getStatus().trajectory.events);
        JsonNode conftest = events.stream().filter(e -> "file".equals(e.get("kind").asText())
                && e.path("data").path("path").asText().endsWith("conftest.py")).findFirst()
                .orElseThrow(() -> new AssertionError("no file event for conftest.py among " + kinds(events)));
        assertThat(conftest.path("data").path("op").asText()).isEqualTo("added");
        List<Long> fileSeqs = events.stream().filter(e -> "file".equals(e.get("kind").asText())).map(e -> e.get("seq").asLong()).toList();
        assertThat(events).as("a finding attached to the file change that caused it, among " + kinds(events)).anySatisfy(e -> {
            assertThat(e.get("kind").asText()).isEqualTo("finding");
            assertThat(fileSeqs).contains(e.path("cause").asLong());
        });
        JsonNode grading = events.stream().filter(e -> "grading".equals(e.get("kind").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no grading event among " + kinds(events)));
        assertThat(grading.path("data").path("tests").isArray()).as(grading.toString()).isTrue();
        assertThat(events).filteredOn(e -> "outcome".equals(e.get("kind").asText())).singleElement()
                .satisfies(e -> assertThat(e.path("data").path("phase").asText()).isEqualTo("Hacked"));

        System.out.printf("trace store: %s read back after its Rollout was deleted: %d events, %s%n", name, events.size(),
                events.stream().map(e -> e.get("kind").asText()).collect(java.util.stream.Collectors.groupingBy(k -> k, java.util.TreeMap::new,
                        java.util.stream.Collectors.counting())));
        HttpResponse<String> row = get(base, reader);
        assertThat(row.statusCode()).as(row.body()).isEqualTo(200);
        assertThat(JSON.readTree(row.body()).get("phase").asText()).isEqualTo("Hacked");
        HttpResponse<String> atif = get(base + "/atif", reader);
        assertThat(atif.statusCode()).as(atif.body()).isEqualTo(200);
        assertThat(JSON.readTree(atif.body()).get("steps").size()).isEqualTo(events.size());

        // Without the right to get that Rollout: refused, and nothing said about whether the store has it.
        String stranger = token("stranger");
        for (String path : List.of(base, base + "/segments", base + "/segments/1", base + "/atif")) {
            HttpResponse<String> refused = get(path, stranger);
            assertThat(refused.statusCode()).as("stranger GET " + path + ": " + refused.body()).isEqualTo(403);
            assertThat(refused.body()).doesNotContain("\"kind\"");
        }
        assertThat(get(base + "/segments", null).statusCode()).as("no token").isEqualTo(401);
    }

    private static List<String> kinds(List<JsonNode> events) {
        return events.stream().map(e -> e.get("kind").asText() + ":" + e.path("data").path("path").asText("")).toList();
    }

    /** A ServiceAccount token from the TokenRequest API, for the API server's own audience (what a person's kubectl holds). */
    private static String token(String serviceAccount) {
        return client.serviceAccounts().inNamespace(NS).withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                .getStatus().getToken();
    }

    private static HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(store + path)).timeout(Duration.ofSeconds(30)).GET();
        if (token != null) b.header("Authorization", "Bearer " + token);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
