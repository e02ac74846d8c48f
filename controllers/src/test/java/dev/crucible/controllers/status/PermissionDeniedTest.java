package dev.crucible.controllers.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

class PermissionDeniedTest {

    static KubernetesClientException forbidden(String message) {
        return new KubernetesClientException(new StatusBuilder().withCode(403).withReason("Forbidden").withMessage(message).build());
    }

    @Test
    void namesVerbResourceAndNamespaceOfAnRbacRefusal() {
        var e = forbidden("pods is forbidden: User \"system:serviceaccount:crucible-system:crucible\" cannot deletecollection "
                + "resource \"pods\" in API group \"\" in the namespace \"team-a\"");
        PermissionDenied d = PermissionDenied.of(new RuntimeException("wrapped", e)).orElseThrow();
        assertThat(d.verb()).isEqualTo("deletecollection");
        assertThat(d.qualifiedResource()).isEqualTo("pods");
        assertThat(d.namespace()).isEqualTo("team-a");
        assertThat(d.describe()).contains("may not deletecollection pods in namespace team-a")
                .contains("verb \"deletecollection\" on resource \"pods\"");
    }

    @Test
    void clusterScopedRefusalHasNoNamespace() {
        var d = PermissionDenied.of(forbidden("nodes is forbidden: User \"u\" cannot list resource \"nodes\" in API group \"\" "
                + "at the cluster scope")).orElseThrow();
        assertThat(d.describe()).contains("may not list nodes at the cluster scope");
        var apps = PermissionDenied.of(forbidden("deployments.apps is forbidden: User \"u\" cannot patch resource "
                + "\"deployments\" in API group \"apps\" in the namespace \"n\"")).orElseThrow();
        assertThat(apps.qualifiedResource()).isEqualTo("deployments.apps");
    }

    @Test
    void aQuotaRefusalIsNotAPermissionProblem() {
        assertThat(PermissionDenied.of(forbidden("pods \"x\" is forbidden: exceeded quota: q, requested: cpu=2"))).isEmpty();
        assertThat(PermissionDenied.of(new IllegalStateException("no"))).isEmpty();
    }
}
