package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * console.*: off by default; on, the cluster console's Deployment and Service, running as a ServiceAccount of its own
 * that no Role or ClusterRole binding names and whose token is not mounted (it forwards each person's own token), told
 * the API server, the cluster's CA and the chart's trace store. Without the trace store the chart refuses to render.
 */
class ChartConsoleTest {

    @Test
    void offByDefault() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true")));
        assertThat(objects).noneMatch(o -> o.getMetadata().getName().endsWith("-console"));
    }

    @Test
    void onItIsADeploymentAndServiceWithAnAccountThatHoldsNoPower() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true", "console.enabled", "true")));
        Deployment d = one(objects, Deployment.class, "crucible-console");
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getServiceAccountName()).isEqualTo("crucible-console");
        assertThat(pod.getAutomountServiceAccountToken()).as("no token of its own in the pod").isFalse();
        assertThat(one(objects, ServiceAccount.class, "crucible-console").getAutomountServiceAccountToken()).isFalse();
        // no binding anywhere in the chart names the console's account: it has no RBAC of its own
        assertThat(objects).filteredOn(o -> o instanceof RoleBinding || o instanceof ClusterRoleBinding)
                .allSatisfy(b -> assertThat(subjects(b)).doesNotContain("crucible-console"));

        var c = pod.getContainers().get(0);
        Map<String, String> env = c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        Service store = one(objects, Service.class, "crucible-trace-store");
        assertThat(env).containsEntry("CRUCIBLE_CONSOLE_API_SERVER", "https://kubernetes.default.svc")
                .containsEntry("CRUCIBLE_CONSOLE_TRACE_STORE_URL", "http://crucible-trace-store." + store.getMetadata().getNamespace()
                        + ".svc:" + store.getSpec().getPorts().get(0).getPort())
                .containsEntry("CRUCIBLE_CONSOLE_PORT", "8471");
        // the CA the console trusts comes from the kube-root-ca.crt ConfigMap, mounted where the variable says
        var ca = pod.getVolumes().stream().filter(v -> v.getConfigMap() != null).findFirst().orElseThrow();
        assertThat(ca.getConfigMap().getName()).isEqualTo("kube-root-ca.crt");
        var mount = c.getVolumeMounts().stream().filter(m -> m.getName().equals(ca.getName())).findFirst().orElseThrow();
        assertThat(env.get("CRUCIBLE_CONSOLE_API_CA")).isEqualTo(mount.getMountPath() + "/ca.crt");
        assertThat(c.getImage()).as("the image console's -Pimages build writes")
                .isEqualTo(dev.crucible.e2e.images.BuildImageNames.fromRootPom().reference("console"));
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");

        Service svc = one(objects, Service.class, "crucible-console");
        assertThat(svc.getSpec().getPorts().get(0).getPort()).isEqualTo(8471);
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(svc.getSpec().getSelector());
        assertThat(svc.getSpec().getSelector()).containsEntry("app.kubernetes.io/component", "console");
    }

    @Test
    void aPinnedStoreAddressReachesTheConsoleToo() throws Exception {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("traceStore.enabled", "true",
                "traceStore.clusterIP", "10.96.0.200", "console.enabled", "true")));
        assertThat(one(objects, Deployment.class, "crucible-console").getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .filteredOn(e -> e.getName().equals("CRUCIBLE_CONSOLE_TRACE_STORE_URL")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo("http://10.96.0.200:8470"));
    }

    @Test
    void withoutTheTraceStoreTheChartSaysWhy() {
        assertThat(catchThrowable(() -> ChartRendering.render(Map.of("console.enabled", "true"))))
                .as("console.enabled without traceStore.enabled").isNotNull().hasMessageContaining("console.enabled needs traceStore.enabled");
        assertThat(catchThrowable(() -> ChartRendering.render(Map.of("console.enabled", "true", "traceStore.enabled", "true",
                "console.port", "eighty")))).as("a port that is not a number").isNotNull().hasMessageContaining("port");
    }

    private static List<String> subjects(HasMetadata binding) {
        var subjects = binding instanceof RoleBinding r ? r.getSubjects() : ((ClusterRoleBinding) binding).getSubjects();
        return subjects == null ? List.of() : subjects.stream().map(s -> s.getName()).toList();
    }

    private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        return objects.stream().filter(type::isInstance).map(type::cast).filter(o -> o.getMetadata().getName().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }
}
