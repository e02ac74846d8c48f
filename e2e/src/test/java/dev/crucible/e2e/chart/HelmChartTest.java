package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import dev.crucible.operator.CrucibleConfig;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The chart lints clean, renders for the value sets that matter, and every object decodes strictly. */
class HelmChartTest {

    /** Kinds outside Fabric8's core models that the chart may render. */
    private static final Set<String> CRD_KINDS = Set.of("Certificate", "Issuer", "ServiceMonitor");

    static Stream<Map<String, Object>> valueSets() {
        return Stream.of(
                Map.of(),
                Map.of("watchNamespaces[0]", "team-a", "watchNamespaces[1]", "team-b"),
                Map.of("webhook.certManager.enabled", "true", "metrics.serviceMonitor.enabled", "true"),
                Map.of("snapshots.storage.type", "pvc", "snapshots.storage.claimName", "snapshots",
                        "rollouts.gpu.nodeSelector.pool", "h100"),
                Map.of("webhook.enabled", "false", "snapshots.agent.enabled", "false"),
                Map.of("webhook.certManager.enabled", "false", "webhook.failurePolicy", "Ignore",
                        "webhook.selfSigned.extraSans[0]", "webhook.example.com", "webhook.selfSigned.validityDays", 90));
    }

    @Test
    void lintIsClean() {
        LintResult result = new Helm(ChartRendering.chartDir()).lint().strict().call();
        assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
        assertThat(result.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void everyRenderedObjectDecodesStrictly(Map<String, Object> values) {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(values));
        assertThat(objects).isNotEmpty();
        for (HasMetadata o : objects) {
            String id = o.getKind() + "/" + o.getMetadata().getName();
            if (o instanceof GenericKubernetesResource) {
                assertThat(CRD_KINDS).as("kind of " + id + " has no Fabric8 model").contains(o.getKind());
            }
            assertThat(StrictDecoding.unknownFields(o)).as("unknown fields in " + id).isEmpty();
            assertThat(o.getMetadata().getLabels()).as("labels of " + id).containsKey("app.kubernetes.io/instance");
        }
    }

    @Test
    void operatorRunsLockedDownWithProbesAndLeaderElection() {
        Deployment d = only(StrictDecoding.decode(ChartRendering.render(Map.of())), Deployment.class);
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        var c = pod.getContainers().get(0);
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("QUARKUS_OPERATOR_SDK_LEADER_ELECTION_ENABLED")
                && e.getValue().equals("true"));
        assertThat(d.getSpec().getTemplate().getMetadata().getAnnotations()).containsEntry("prometheus.io/scrape", "true");
    }

    @Test
    void rolloutPodsGetUserNamespacesWhenTurnedOn() {
        assertThat(ChartRendering.render(Map.of())).contains("crucible.rollouts.user-namespaces=false");
        assertThat(ChartRendering.render(Map.of("rollouts.userNamespaces", "true")))
                .contains("crucible.rollouts.user-namespaces=true").doesNotContain("crucible.rollouts.user-namespaces=false");
    }

    @Test
    void withCertManagerTheWebhookGetsItsCertificateFromCertManager() {
        String with = ChartRendering.render(Map.of("webhook.certManager.enabled", "true"));
        List<HasMetadata> objects = StrictDecoding.decode(with);
        assertThat(objects).extracting(HasMetadata::getKind).contains("ValidatingWebhookConfiguration", "Certificate", "Issuer");
        assertThat(with).contains("cert-manager.io/inject-ca-from: crucible-system/crucible-webhook")
                .contains("quarkus.http.ssl.certificate.files=/etc/crucible/webhook/tls.crt")
                .doesNotContain("crucible.webhook.self-signed");
        assertThat(objects).noneMatch(o -> o.getMetadata().getName().equals("crucible-webhook-selfsigned"));
    }

    @Test
    void withoutCertManagerTheOperatorIssuesTheCertificateWithAccessToNamedObjectsOnly() {
        String text = ChartRendering.render(Map.of());
        List<HasMetadata> objects = StrictDecoding.decode(text);
        assertThat(objects).extracting(HasMetadata::getKind).doesNotContain("Certificate", "Issuer");

        ValidatingWebhookConfiguration vwc = only(objects, ValidatingWebhookConfiguration.class);
        assertThat(vwc.getMetadata().getName()).isEqualTo("crucible");
        assertThat(vwc.getMetadata().getAnnotations()).isNullOrEmpty();
        ValidatingWebhook hook = vwc.getWebhooks().get(0);
        assertThat(hook.getClientConfig().getCaBundle()).as("the operator's field, never rendered").isNull();
        assertThat(hook.getClientConfig().getService().getName()).isEqualTo("crucible-webhook");
        assertThat(hook.getFailurePolicy()).isEqualTo("Fail");

        Secret secret = objects.stream().filter(Secret.class::isInstance).map(Secret.class::cast)
                .filter(x -> x.getMetadata().getName().equals("crucible-webhook-selfsigned")).findFirst().orElseThrow();
        assertThat(secret.getData()).as("created empty: the operator fills it").isNullOrEmpty();
        assertThat(secret.getType()).isEqualTo("Opaque");

        List<PolicyRule> secretRules = rules(objects).filter(r -> r.getResources().contains("secrets")
                && !isCreateOnly(r)).toList();
        // Every Secret the operator may read or change is named: the webhook's, and the snapshot agents' CA and TLS Secrets.
        assertThat(secretRules).allSatisfy(r -> {
            assertThat(r.getResourceNames()).as("named Secrets only").isNotEmpty();
            assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "patch");
        });
        assertThat(secretRules).flatExtracting(PolicyRule::getResourceNames)
                .containsExactlyInAnyOrder("crucible-webhook-selfsigned", "crucible-snapshot-agent-ca", "crucible-snapshot-agent-tls");
        List<PolicyRule> webhookRules = rules(objects).filter(r -> r.getResources().contains("validatingwebhookconfigurations")).toList();
        assertThat(webhookRules).singleElement().satisfies(r -> {
            assertThat(r.getResourceNames()).containsExactly("crucible");
            assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "patch");
        });

        assertThat(text).contains("crucible.webhook.self-signed.enabled=true")
                .contains("crucible.webhook.self-signed.secret-name=crucible-webhook-selfsigned")
                .contains("crucible.webhook.self-signed.service-name=crucible-webhook")
                .contains("crucible.webhook.self-signed.namespace=crucible-system")
                .doesNotContain("quarkus.http.ssl");
        Deployment d = only(objects, Deployment.class);
        var container = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getPorts()).anyMatch(p -> p.getName().equals("webhook") && p.getContainerPort() == 8443);
        assertThat(container.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/tmp"))
                .noneMatch(m -> m.getName().equals("webhook-certs"));
    }

    /** Every crucible.webhook.* key the ConfigMap writes is one the operator's config reads. */
    @Test
    void selfSignedConfigKeysAreKeysTheOperatorReads() {
        Set<String> read = Arrays.stream(CrucibleConfig.SelfSigned.class.getDeclaredMethods())
                .map(m -> "crucible.webhook.self-signed." + m.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        String text = ChartRendering.render(Map.of("webhook.selfSigned.extraSans[0]", "127.0.0.1"));
        List<String> written = text.lines().map(String::trim).filter(l -> l.startsWith("crucible.webhook."))
                .map(l -> l.substring(0, l.indexOf('='))).toList();
        assertThat(written).hasSizeGreaterThanOrEqualTo(12);
        assertThat(read).containsAll(written);
        assertThat(text).contains("crucible.webhook.self-signed.extra-sans=127.0.0.1");
    }

    @Test
    void noWebhookWhenDisabled() {
        List<HasMetadata> objects = StrictDecoding.decode(ChartRendering.render(Map.of("webhook.enabled", "false")));
        assertThat(objects).extracting(HasMetadata::getKind).doesNotContain("ValidatingWebhookConfiguration", "Certificate");
        assertThat(objects).noneMatch(o -> o.getMetadata().getName().startsWith("crucible-webhook-"));
    }

    @Test
    void snapshotAgentIsPrivilegedOnlyOnLabelledNodes() {
        DaemonSet ds = only(StrictDecoding.decode(ChartRendering.render(Map.of())), DaemonSet.class);
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsEntry("crucible.dev/snapshot-agent", "true");
        assertThat(pod.getContainers().get(0).getSecurityContext().getPrivileged()).isTrue();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    }

    /** The soak's warning "token file … is world-readable" (issue 41): every Secret the agent mounts is owner-only. */
    @Test
    void theSnapshotAgentsSecretsAreReadableByItsOwnerOnly() {
        DaemonSet ds = only(StrictDecoding.decode(ChartRendering.render(Map.of())), DaemonSet.class);
        var secrets = ds.getSpec().getTemplate().getSpec().getVolumes().stream().filter(v -> v.getSecret() != null).toList();
        assertThat(secrets).extracting(v -> v.getName()).contains("token", "tls");
        assertThat(secrets).allSatisfy(v -> assertThat(v.getSecret().getDefaultMode()).as(v.getName() + " defaultMode")
                .isNotNull().satisfies(mode -> assertThat(mode & 0077).as(v.getName() + ": group/other bits").isZero()));
    }

    /**
     * The operator's Secrets (the snapshot agents' token; cert-manager's webhook key) were mounted 0644, readable by any
     * uid in its container: they are 0440 for the fsGroup the pod runs with (the image's uid 1000 is in it), so the
     * operator still reads them (checked on the real node) and no other uid does.
     */
    @ParameterizedTest
    @MethodSource("webhookModes")
    void theOperatorsSecretsAreReadableByItsGroupOnly(String certManager) {
        PodSpec pod = only(StrictDecoding.decode(ChartRendering.render(Map.of("webhook.certManager.enabled", certManager))),
                Deployment.class).getSpec().getTemplate().getSpec();
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(1000L);
        var secrets = pod.getVolumes().stream().filter(v -> v.getSecret() != null).toList();
        assertThat(secrets).extracting(v -> v.getName()).contains("snapshot-agent-token");
        if (certManager.equals("true")) assertThat(secrets).extracting(v -> v.getName()).contains("webhook-certs");
        assertThat(secrets).allSatisfy(v -> assertThat(v.getSecret().getDefaultMode()).as(v.getName() + " defaultMode").isEqualTo(0440));
    }

    static Stream<String> webhookModes() {
        return Stream.of("false", "true");
    }

    @Test
    void theSnapshotAgentMayOnlyAskItsKubeletForCheckpointsAndOnlyWhenMemorySnapshotsAreOn() {
        List<HasMetadata> on = StrictDecoding.decode(ChartRendering.render(Map.of()));
        ClusterRole role = on.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("crucible-snapshot-agent-checkpoint")).findFirst().orElseThrow();
        assertThat(role.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getResources()).containsExactly("nodes/checkpoint");
            assertThat(r.getVerbs()).containsExactly("create");
        });
        var binding = on.stream().filter(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class::cast)
                .filter(b -> b.getRoleRef().getName().equals("crucible-snapshot-agent-checkpoint")).findFirst().orElseThrow();
        assertThat(binding.getSubjects()).singleElement().satisfies(sub -> assertThat(sub.getName()).isEqualTo("crucible-snapshot-agent"));
        PodSpec pod = only(on, DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers().get(0).getArgs()).contains("--kubelet", "$(HOST_IP):10250", "--containerd-socket",
                "--kubelet-token-file", "/var/lib/kubelet/pki/kubelet.crt");
        assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getProjected()).isNotNull());

        List<HasMetadata> off = StrictDecoding.decode(ChartRendering.render(Map.of("snapshots.agent.runtimeCheckpoints", false)));
        assertThat(off).noneMatch(o -> o.getMetadata().getName().equals("crucible-snapshot-agent-checkpoint"));
        PodSpec offPod = only(off, DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(offPod.getContainers().get(0).getArgs()).doesNotContain("--kubelet", "--containerd-socket");
        assertThat(offPod.getVolumes()).noneMatch(v -> v.getProjected() != null);
    }

    @Test
    void rbacIsNamespacedWhenNamespacesAreListedAndNeverGrantsWildcards() {
        List<HasMetadata> all = StrictDecoding.decode(ChartRendering.render(valueSets().toList().get(1)));
        List<Role> roles = all.stream().filter(Role.class::isInstance).map(Role.class::cast).toList();
        assertThat(roles).extracting(r -> r.getMetadata().getNamespace()).contains("team-a", "team-b");
        List<ClusterRole> clusterRoles = all.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast).toList();
        assertThat(clusterRoles).extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrder("crucible-cluster-read", "crucible-webhook-configuration",
                        "crucible-snapshot-agent-checkpoint"); // nodes are cluster-scoped: no Role can grant it
        Stream.concat(roles.stream().flatMap(r -> r.getRules().stream()), clusterRoles.stream().flatMap(r -> r.getRules().stream()))
                .forEach((PolicyRule rule) -> {
                    assertThat(rule.getVerbs()).doesNotContain("*");
                    assertThat(rule.getResources()).doesNotContain("*");
                    if (rule.getResources().contains("secrets") && !isCreateOnly(rule)) {
                        assertThat(rule.getResourceNames()).as("Secrets only by name").isNotEmpty();
                    }
                });
    }

    @Test
    void badValuesAreRefusedByTheSchemaNamingTheField() {
        assertThatThrownBy(() -> ChartRendering.render(Map.of("operator.replicas", 0)))
                .hasMessageContaining("replicas");
        assertThatThrownBy(() -> ChartRendering.render(Map.of("webhook.failurePolicy", "Sometimes")))
                .hasMessageContaining("failurePolicy");
        assertThatThrownBy(() -> ChartRendering.render(Map.of("snapshots.storage.type", "pvc")))
                .hasMessageContaining("claimName");
        assertThatThrownBy(() -> ChartRendering.render(Map.of("webhook.selfSigned.renewBeforeDays", 400)))
                .hasMessageContaining("webhook.selfSigned.renewBeforeDays (400) must be less than webhook.selfSigned.validityDays (365)");
        assertThatThrownBy(() -> ChartRendering.render(Map.of("webhook.selfSigned.validityDays", 0)))
                .hasMessageContaining("validityDays");
    }

    @Test
    void chartCarriesExactlyTheGeneratedCrds() throws Exception {
        var chartCrds = ChartRendering.chartDir().resolve("crds");
        var repoCrds = ChartRendering.chartDir().getParent().getParent().resolve("crds");
        try (Stream<java.nio.file.Path> files = Files.list(chartCrds)) {
            List<java.nio.file.Path> list = files.toList();
            assertThat(list).hasSize(4);
            for (var f : list) {
                assertThat(Files.readString(f)).isEqualTo(Files.readString(repoCrds.resolve(f.getFileName())));
            }
        }
    }

    /**
     * The per-Rollout environment API token Secrets: create cannot be limited by name in RBAC, so the
     * rule grants create alone (the operator creates each once), which reads or changes no Secret.
     */
    private static boolean isCreateOnly(PolicyRule r) {
        return r.getResources().equals(List.of("secrets")) && r.getVerbs().equals(List.of("create"))
                && (r.getResourceNames() == null || r.getResourceNames().isEmpty());
    }

    private static Stream<PolicyRule> rules(List<HasMetadata> objects) {
        return objects.stream().flatMap(o -> o instanceof Role r ? r.getRules().stream()
                : o instanceof ClusterRole c ? c.getRules().stream() : Stream.empty());
    }

    private static <T> T only(List<HasMetadata> objects, Class<T> type) {
        List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(matching).hasSize(1);
        return matching.get(0);
    }
}
