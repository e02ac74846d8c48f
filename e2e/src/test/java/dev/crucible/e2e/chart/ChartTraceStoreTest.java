package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.config.TraceStorePeer;
import dev.crucible.controllers.rollout.EgressPolicyBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * traceStore.*: off by default; on, a Deployment of one store (Recreate: one volume, one H2 file lock) on a kept PVC,
 * its Service, and a ClusterRole with exactly the reviews and the Rollout read the store needs; retention and limits
 * reach the container as the variables trace-store's StoreSettings reads.
 */
class ChartTraceStoreTest {

    @Test
    void offByDefault() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of()));
        assertThat(objects).noneMatch(o -> o.getMetadata().getName().endsWith("-trace-store"));
        assertThat(one(objects, Deployment.class, "crucible").getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .noneMatch(e -> e.getName().equals("CRUCIBLE_TRACE_STORE_URL"));
        assertThat(one(objects, ClusterRole.class, "crucible").getRules()).noneMatch(r -> r.getResources().contains("serviceaccounts"));
    }

    @Test
    void onTheOperatorSendsRolloutPodsToTheStoresServiceAndMayMakeTheirWriterAccount() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true")));
        Service svc = one(objects, Service.class, "crucible-trace-store");
        var env = one(objects, Deployment.class, "crucible").getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
        assertThat(env).filteredOn(e -> e.getName().equals("CRUCIBLE_TRACE_STORE_URL")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo("http://crucible-trace-store." + svc.getMetadata().getNamespace()
                        + ".svc:" + svc.getSpec().getPorts().get(0).getPort()));
        assertThat(one(objects, ClusterRole.class, "crucible").getRules())
                .filteredOn(r -> r.getResources().contains("serviceaccounts")).singleElement()
                .satisfies(r -> assertThat(r.getVerbs()).containsExactly("create"));
    }

    /**
     * The operator's peer settings name exactly the store's pods: the egress rule the operator builds from them (with
     * EgressPolicyBuilder, as the operator does) selects the store Deployment's pods, in its namespace, on its container
     * port and nothing else. A CNI that enforces NetworkPolicy would otherwise drop the sidecar's segments; the real
     * node's bridge CNI enforces none, so this is where the two sides are checked against each other.
     */
    @Test
    void rolloutPodsEgressRuleFromTheChartsSettingsSelectsTheStoresPodsOnTheirPort() throws Exception {
        assertThat(operatorProperties(StrictDecoding.decode(ChartRendering.render(Map.of()))).stringPropertyNames())
                .noneMatch(k -> k.startsWith("crucible.trace-store."));
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true", "traceStore.port", "9470")));
        Properties props = operatorProperties(objects);
        TraceStorePeer peer = TraceStorePeer.parse(props.getProperty("crucible.trace-store.namespace"),
                props.getProperty("crucible.trace-store.pod-selector"), Integer.parseInt(props.getProperty("crucible.trace-store.pod-port")));
        String url = one(objects, Deployment.class, "crucible").getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("CRUCIBLE_TRACE_STORE_URL")).findFirst().orElseThrow().getValue();
        RLEnvironment env = new RLEnvironment();
        env.setMetadata(new ObjectMetaBuilder().withName("closed").withNamespace("team-a").build());
        env.setSpec(new RLEnvironmentSpec()); // no allow-list: the store's rule is the only one
        var rules = EgressPolicyBuilder.shared("team-a", env, OperatorSettings.defaults().withTraceStore(url).withTraceStorePeer(peer))
                .getSpec().getEgress();

        Deployment store = one(objects, Deployment.class, "crucible-trace-store");
        var podLabels = store.getSpec().getTemplate().getMetadata().getLabels();
        var containerPort = store.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().stream()
                .filter(p -> "http".equals(p.getName())).findFirst().orElseThrow().getContainerPort();
        assertThat(rules).singleElement().satisfies(rule -> {
            var to = rule.getTo().get(0);
            assertThat(rule.getTo()).hasSize(1);
            assertThat(to.getNamespaceSelector().getMatchLabels())
                    .containsExactly(Map.entry("kubernetes.io/metadata.name", store.getMetadata().getNamespace()));
            assertThat(podLabels).as("the store's pods carry every label the rule selects").containsAllEntriesOf(to.getPodSelector().getMatchLabels());
            assertThat(to.getPodSelector().getMatchLabels()).as("and select no other of the chart's pods")
                    .isEqualTo(store.getSpec().getSelector().getMatchLabels());
            assertThat(rule.getPorts()).singleElement().satisfies(p -> {
                assertThat(p.getProtocol()).isEqualTo("TCP");
                assertThat(p.getPort().getIntVal()).isEqualTo(containerPort).isEqualTo(9470);
            });
        });
        // The operator's own pods match the component label differently: the rule opens nothing to them.
        assertThat(one(objects, Deployment.class, "crucible").getSpec().getTemplate().getMetadata().getLabels())
                .doesNotContainEntry("app.kubernetes.io/component", "trace-store");
    }

    private static Properties operatorProperties(List<HasMetadata> objects) throws Exception {
        Properties props = new Properties();
        props.load(new StringReader(one(objects, ConfigMap.class, "crucible-config").getData().get("application.properties")));
        return props;
    }

    /** A cluster without DNS (e2e's real node), or a pod whose egress policy allows no DNS, reaches the store by address. */
    @Test
    void aPinnedClusterIpIsTheServicesAddressAndWhatRolloutPodsAreGiven() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.clusterIP", "10.96.0.200")));
        assertThat(one(objects, Service.class, "crucible-trace-store").getSpec().getClusterIP()).isEqualTo("10.96.0.200");
        assertThat(one(objects, Deployment.class, "crucible").getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .filteredOn(e -> e.getName().equals("CRUCIBLE_TRACE_STORE_URL")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo("http://10.96.0.200:8470"));
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.clusterIP", "store.example.com")))).as("a name as clusterIP").isNotNull().hasMessageContaining("clusterIP");
    }

    @Test
    void onItIsADeploymentOnAKeptVolumeWithItsSettings() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.retention.maxAge", "P7D", "traceStore.retention.maxBytes", "1073741824",
                "traceStore.persistence.size", "2Gi")));
        Deployment d = one(objects, Deployment.class, "crucible-trace-store");
        assertThat(d.getSpec().getReplicas()).isEqualTo(1);
        assertThat(d.getSpec().getStrategy().getType()).isEqualTo("Recreate");
        var c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, String> env = c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(env).containsEntry("CRUCIBLE_TRACE_STORE_RETENTION_MAX_AGE", "P7D")
                .containsEntry("CRUCIBLE_TRACE_STORE_RETENTION_MAX_BYTES", "1073741824")
                .containsEntry("CRUCIBLE_TRACE_STORE_MAX_SEGMENT_BYTES", "67108864")
                .containsEntry("CRUCIBLE_TRACE_STORE_WRITER_SERVICE_ACCOUNT", "crucible-trace-writer")
                .containsEntry("CRUCIBLE_TRACE_STORE_DIR", c.getVolumeMounts().get(0).getMountPath());
        assertThat(c.getImage()).startsWith("crucible/trace-store:");
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("crucible-trace-store");
        assertThat(d.getSpec().getTemplate().getSpec().getVolumes().get(0).getPersistentVolumeClaim().getClaimName())
                .isEqualTo("crucible-trace-store");

        PersistentVolumeClaim pvc = one(objects, PersistentVolumeClaim.class, "crucible-trace-store");
        assertThat(pvc.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("2Gi");
        assertThat(pvc.getMetadata().getAnnotations()).containsEntry("helm.sh/resource-policy", "keep");
        Service svc = one(objects, Service.class, "crucible-trace-store");
        assertThat(svc.getSpec().getSelector()).containsEntry("app.kubernetes.io/component", "trace-store");
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(svc.getSpec().getSelector());

        ClusterRole role = one(objects, ClusterRole.class, "crucible-trace-store");
        assertThat(role.getRules()).extracting(r -> r.getApiGroups().get(0) + "/" + r.getResources().get(0) + ":" + r.getVerbs())
                .containsExactlyInAnyOrder("authentication.k8s.io/tokenreviews:[create]",
                        "authorization.k8s.io/subjectaccessreviews:[create]", "crucible.dev/rollouts:[get]");
        ClusterRoleBinding binding = one(objects, ClusterRoleBinding.class, "crucible-trace-store");
        assertThat(binding.getSubjects().get(0).getName()).isEqualTo("crucible-trace-store");
    }

    @Test
    void anExistingClaimReplacesTheChartsOwn() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.persistence.existingClaim", "traces")));
        assertThat(objects).noneMatch(PersistentVolumeClaim.class::isInstance);
        assertThat(one(objects, Deployment.class, "crucible-trace-store").getSpec().getTemplate().getSpec().getVolumes().get(0)
                .getPersistentVolumeClaim().getClaimName()).isEqualTo("traces");
    }

    @Test
    void withoutPersistenceItKeepsTrajectoriesInABoundedEmptyDirAndMakesNoClaim() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.persistence.enabled", "false", "traceStore.persistence.size", "3Gi")));
        assertThat(objects).noneMatch(PersistentVolumeClaim.class::isInstance);
        var spec = one(objects, Deployment.class, "crucible-trace-store").getSpec().getTemplate().getSpec();
        var store = spec.getVolumes().stream().filter(v -> v.getName().equals("store")).findFirst().orElseThrow();
        assertThat(store.getPersistentVolumeClaim()).isNull();
        assertThat(store.getEmptyDir().getSizeLimit().toString()).isEqualTo("3Gi");
        assertThat(spec.getContainers().get(0).getVolumeMounts()).anySatisfy(m -> assertThat(m.getName()).isEqualTo("store"));
    }

    @Test
    void theStoreIsReadyOnlyWhenItAnswersAndLivenessWaitsForItsStart() throws Exception {
        var c = one(StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true"))), Deployment.class,
                "crucible-trace-store").getSpec().getTemplate().getSpec().getContainers().get(0);
        for (var probe : List.of(c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe())) {
            assertThat(probe.getHttpGet().getPath()).isEqualTo("/healthz");
            assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("http");
        }
        assertThat(c.getStartupProbe().getPeriodSeconds() * c.getStartupProbe().getFailureThreshold())
                .as("seconds a slow JVM has to start").isGreaterThanOrEqualTo(120);
    }

    @Test
    void aSchemaRefusesANonBooleanPersistenceSwitch() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.persistence.enabled", "maybe")))).as("rendering with persistence.enabled=maybe").isNotNull()
                .hasMessageContaining("enabled");
    }

    private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        return objects.stream().filter(type::isInstance).map(type::cast).filter(o -> o.getMetadata().getName().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }
}
