package dev.crucible.e2e.chart;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.controllers.probe.ProbeNames;
import dev.crucible.controllers.snapshot.DaemonSetAgents;
import dev.crucible.controllers.snapshot.SnapshotAgentSettings;
import dev.crucible.controllers.status.PermissionReporter;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.LocalCluster;
import dev.crucible.operator.webhook.SnapshotAgentCertificates;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RBAC tier: the reconcilers and the operator's start-up (snapshot-agent certificates, leader
 * election, informers on every namespace) run as the chart's ServiceAccount, with the chart's own
 * Roles and default values, through a Rollout's whole life, an RLEnvironment, a RolloutSnapshot and a
 * ProbeModel. Any call the API server refuses fails the test, by name; a refusal also shows on the
 * object as a {@code PermissionDenied} condition and Event (the last test takes a verb away to see it).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChartRbacOnApiServerTest {

    private static final String RELEASE = "crucible-rbac";
    static LocalCluster cluster;
    static KubernetesClient admin;
    static ChartServiceAccount sa;
    static KubernetesClient operatorClient;
    static InProcessOperator operator;
    static String releaseNamespace;

    @BeforeAll
    static void startAsTheChartsServiceAccount(@TempDir Path dir) throws Exception {
        cluster = SharedCluster.cluster();
        admin = cluster.client();
        // One operator at a time on the shared API server: the shared (admin) one would race this one.
        SharedCluster.stopOperator();
        releaseNamespace = SharedCluster.namespace("crucible-rbac-system");
        sa = ChartServiceAccount.install(admin, RELEASE, releaseNamespace, Map.of());
        operatorClient = sa.client(cluster);

        // Start-up as Quarkus runs it: snapshot-agent certificates into the chart's Secrets, then the
        // controllers behind the Lease, holder = the pod's name.
        new SnapshotAgentCertificates(operatorClient, releaseNamespace, RELEASE + "-snapshot-agent-ca",
                RELEASE + "-snapshot-agent-tls", Files.createDirectories(dir.resolve("tls")), Duration.ofDays(365),
                Duration.ofDays(120), Clock.systemUTC()).ensure();
        Path token = Files.writeString(dir.resolve("token"), "t0ken");
        var agents = new DaemonSetAgents(operatorClient, new SnapshotAgentSettings(releaseNamespace,
                "app.kubernetes.io/instance=" + RELEASE + ",app.kubernetes.io/component=snapshot-agent", 9443, token, null),
                Duration.ofSeconds(5));
        operator = new InProcessOperator(operatorClient, SharedCluster.SETTINGS, agents,
                // exitOnStopLeading false: the SDK would end this JVM when the test stops the operator.
                o -> o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(RELEASE + "-leader",
                        releaseNamespace, Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2),
                        RELEASE + "-operator-0", new LeaderCallbacks(() -> { }, () -> { }, id -> { }), false)),
                "crucible/probe-server:test").start();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var lease = admin.leases().inNamespace(releaseNamespace).withName(RELEASE + "-leader").get();
            return lease != null && (RELEASE + "-operator-0").equals(lease.getSpec().getHolderIdentity());
        });
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.close();
            operatorClient.close();
        }
    }

    static PhaseName phase(String ns, String name) {
        Rollout r = admin.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    @Test
    @Order(1)
    void aRolloutsWholeLifeSnapshotAndProbeNeedNothingTheChartDoesNotGrant() throws Exception {
        String ns = SharedCluster.namespace("rbac");
        Manifests.environment(admin, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            RLEnvironment e = admin.resources(RLEnvironment.class).inNamespace(ns).withName("calc").get();
            return e.getStatus() != null && "Ready".equals(e.getStatus().phase);
        });
        Manifests.rollout(admin, ns, "calc-a0", "calc", "limits: {maxDurationSeconds: 600, maxTurns: 50}");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-a0") == PhaseName.Running);

        // A snapshot of the running rollout: no agent runs on kwok's nodes, so it fails, after the
        // operator looked for one (pods in its own namespace) and wrote status and an Event.
        RolloutSnapshot snap = admin.getKubernetesSerialization().unmarshal("""
                apiVersion: crucible.dev/v1alpha1
                kind: RolloutSnapshot
                metadata: {name: calc-a0-s1, namespace: %s}
                spec:
                  rolloutRef: {name: calc-a0}
                  include: {memory: true, disk: true}
                  timeoutSeconds: 30
                """.formatted(ns), RolloutSnapshot.class);
        admin.resource(snap).create();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            RolloutSnapshot s = admin.resources(RolloutSnapshot.class).inNamespace(ns).withName("calc-a0-s1").get();
            return s.getStatus() != null && s.getStatus().phase == SnapshotPhase.Failed;
        });

        Manifests.verifierExits(admin, ns, "calc-a0-main-0", """
                {"reward":1.0,"verdict":"pass","tests":{"passed":2,"failed":0,"skipped":0,"total":2,
                "failToPassPassed":1,"failToPassTotal":1},"hackFindings":[],"turns":12,"phase":"Succeeded"}""");
        await().atMost(Duration.ofSeconds(30)).until(() -> phase(ns, "calc-a0") == PhaseName.Succeeded);

        ProbeModel probe = admin.getKubernetesSerialization().unmarshal(Files.readString(repoRoot()
                .resolve("examples/probe/probemodel.yaml")), ProbeModel.class);
        probe.getMetadata().setNamespace(ns);
        admin.resource(probe).create();
        String server = ProbeNames.serverName(probe.getMetadata().getName());
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.apps().deployments().inNamespace(ns).withName(server).get() != null
                && phaseOf(admin.resources(ProbeModel.class).inNamespace(ns).withName(probe.getMetadata().getName()).get()) != null);

        // Delete: on the delete event the operator removes the pods by label (this tier has no garbage collector).
        admin.resources(Rollout.class).inNamespace(ns).withName("calc-a0").delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> !sa.forbidden.seenIn(ns, releaseNamespace).isEmpty()
                || Manifests.podsOf(admin, ns, "calc-a0").isEmpty());
        assertThat(sa.forbidden.seenIn(ns, releaseNamespace)).as("calls the API server refused to " + sa.user()).isEmpty();
        assertThat(admin.resources(Rollout.class).inNamespace(ns).withName("calc-a0").get()).isNull();
        assertThat(Manifests.podsOf(admin, ns, "calc-a0")).isEmpty();
        admin.resources(RolloutSnapshot.class).inNamespace(ns).withName("calc-a0-s1").delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.resources(RolloutSnapshot.class).inNamespace(ns).withName("calc-a0-s1").get() == null);

        assertThat(sa.forbidden.seenIn(ns, releaseNamespace)).as("calls the API server refused to " + sa.user()).isEmpty();
    }

    @Test
    @Order(2)
    void aRefusedCallBecomesAConditionAndAnEventNamingTheVerb() {
        String ns = SharedCluster.namespace("rbac-denied");
        Manifests.environment(admin, ns, "calc", "resources: {cpu: 500m, memory: 512Mi}");
        Manifests.rollout(admin, ns, "calc-d", "calc", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "calc-d") == PhaseName.Running);
        ClusterRole role = admin.rbac().clusterRoles().withName(RELEASE).get();
        ClusterRole granted = admin.getKubernetesSerialization().clone(role);
        try {
            // Take deletecollection on pods away (the verb the chart once lacked): delete must say so.
            role.getRules().forEach(r -> {
                if (r.getResources().contains("pods")) {
                    r.setVerbs(r.getVerbs().stream().filter(v -> !v.equals("deletecollection")).toList());
                }
            });
            role.getRules().removeIf(r -> r.getVerbs().isEmpty());
            role.getMetadata().setManagedFields(null);
            admin.resource(role).update();
            // A deleted Rollout (no finalizer) can hold no condition: the refusal is a Warning Event about it.
            admin.resources(Rollout.class).inNamespace(ns).withName("calc-d").delete();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(admin.v1().events().inNamespace(ns).list().getItems())
                    .anySatisfy(e -> {
                        assertThat(e.getInvolvedObject().getName()).isEqualTo("calc-d");
                        assertThat(e.getType()).isEqualTo("Warning");
                        assertThat(e.getReason()).isEqualTo(PermissionReporter.CONDITION);
                        assertThat(e.getMessage()).contains("cleanup forbidden").contains("deletecollection").contains("\"pods\"");
                    }));
            assertThat(sa.forbidden.seen()).anySatisfy(call -> assertThat(call).startsWith("DELETE /api/v1/namespaces/" + ns + "/pods"));
        } finally {
            granted.getMetadata().setResourceVersion(null);
            granted.getMetadata().setManagedFields(null);
            admin.resource(granted).forceConflicts().serverSideApply();
        }
    }

    /**
     * The chart with {@code watchNamespaces}: a Role per watched namespace instead of the ClusterRole. The
     * operator watching only that namespace runs a Rollout and a two-pod gang through their lives (the gang's
     * capacity check counts the operator's own pods: it may not list pods cluster-wide) and needs nothing more.
     */
    @Test
    @Order(3)
    void withWatchNamespacesTheRolesOfThoseNamespacesAreEnough() {
        operator.close();
        operator = null;
        String watched = SharedCluster.namespace("rbac-watched");
        String home = SharedCluster.namespace("crucible-rbacns-system");
        ChartServiceAccount scoped = ChartServiceAccount.install(admin, "crucible-rbacns", home,
                Map.of("watchNamespaces[0]", watched));
        assertThat(admin.rbac().clusterRoles().withName("crucible-rbacns").get()).as("no cluster-wide workload role").isNull();
        try (KubernetesClient client = scoped.client(cluster);
             InProcessOperator ns = new InProcessOperator(client, SharedCluster.SETTINGS, null, o -> { }, null, java.util.Set.of(watched)).start()) {
            Manifests.environment(admin, watched, "calc", "resources: {cpu: 500m, memory: 512Mi}");
            Manifests.environment(admin, watched, "pair", """
                    resources: {cpu: 500m, memory: 512Mi}
                    topology:
                      roles:
                        - name: worker
                          replicas: 2
                    """);
            Manifests.rollout(admin, watched, "calc-a0", "calc", "");
            Manifests.rollout(admin, watched, "pair-a0", "pair", "");
            await().atMost(Duration.ofSeconds(60)).until(() -> phase(watched, "calc-a0") == PhaseName.Running
                    && phase(watched, "pair-a0") == PhaseName.Running);
            Manifests.verifierExits(admin, watched, "calc-a0-main-0", """
                    {"reward":1.0,"verdict":"pass","tests":{"passed":2,"failed":0,"skipped":0,"total":2,
                    "failToPassPassed":1,"failToPassTotal":1},"hackFindings":[],"turns":3,"phase":"Succeeded"}""");
            await().atMost(Duration.ofSeconds(30)).until(() -> phase(watched, "calc-a0") == PhaseName.Succeeded);
            admin.resources(Rollout.class).inNamespace(watched).withName("pair-a0").delete();
            admin.resources(Rollout.class).inNamespace(watched).withName("calc-a0").delete();
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.resources(Rollout.class).inNamespace(watched).list().getItems().isEmpty());
            assertThat(Manifests.podsOf(admin, watched, "pair-a0")).isEmpty();
            assertThat(scoped.forbidden.seen()).as("calls the API server refused to " + scoped.user()).isEmpty();
        }
    }

    private static String phaseOf(ProbeModel p) {
        return p == null || p.getStatus() == null ? null : p.getStatus().phase;
    }

    private static Path repoRoot() {
        return ChartRendering.chartDir().getParent().getParent();
    }
}
