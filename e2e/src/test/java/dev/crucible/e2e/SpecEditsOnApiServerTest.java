package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.api.v1alpha1.rollout.PlacementSpec;
import dev.crucible.api.v1alpha1.rollout.SnapshotPolicySpec;
import dev.crucible.e2e.cluster.KubeBinaries;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Spec edits on the real API server with the generated CRDs: a Rollout field the running attempt was
 * built from is refused on update with a message naming it (CEL transition rules); the fields the
 * operator reads on every reconcile may change; and a client-side {@code kubectl apply} of an unchanged
 * environment says {@code unchanged} (no default the server fills inside a list item).
 */
class SpecEditsOnApiServerTest {

    private static void refused(KubernetesClient client, String ns, String name, String field, Consumer<Rollout> edit) {
        KubernetesClientException refusal = null;
        // the operators of other tests watch this namespace too and write status: a 409 means "read again"
        for (int attempt = 0; attempt < 10 && (refusal == null || refusal.getCode() == 409); attempt++) {
            refusal = catchThrowableOfType(() -> client.resources(Rollout.class).inNamespace(ns).withName(name).edit(r -> {
                edit.accept(r);
                return r;
            }), KubernetesClientException.class);
            if (refusal == null) break;
        }
        assertThat(refusal).as("editing " + field).isNotNull();
        assertThat(refusal).as("editing " + field).hasMessageContaining("spec." + field)
                .hasMessageContaining(field + " is immutable: it is fixed when the attempt starts");
    }

    /** An edit that must be accepted, read again on a 409 (another operator wrote status meanwhile). */
    private static Rollout accepted(KubernetesClient client, String ns, String name, Consumer<Rollout> edit) {
        for (int attempt = 0; ; attempt++) {
            try {
                return client.resources(Rollout.class).inNamespace(ns).withName(name).edit(r -> {
                    edit.accept(r);
                    return r;
                });
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 9) throw e;
            }
        }
    }

    @Test
    void fieldsTheAttemptWasBuiltFromAreImmutableAndTheOthersMayChange() {
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("spec-edits");
        Manifests.environment(client, ns, "env", "");
        Manifests.rollout(client, ns, "r", "env", """
                limits: {maxDurationSeconds: 600, maxTurns: 50}
                group: {id: g1, attempt: 0}
                snapshotPolicy: {intervalSeconds: 60, keep: 2}
                """);

        refused(client, ns, "r", "agent", r -> r.getSpec().agent.command = List.of("agent", "--other"));
        refused(client, ns, "r", "limits", r -> r.getSpec().limits.maxTurns = 51);
        refused(client, ns, "r", "limits", r -> r.getSpec().limits = null);
        refused(client, ns, "r", "group", r -> r.getSpec().group.attempt = 1);
        refused(client, ns, "r", "mode", r -> {
            r.getSpec().mode = dev.crucible.api.v1alpha1.rollout.RolloutMode.INTERACTIVE;
            r.getSpec().agent = null;
        });
        refused(client, ns, "r", "placement", r -> {
            r.getSpec().placement = new PlacementSpec();
            r.getSpec().placement.nodeSelector = Map.of("pool", "a");
        });
        refused(client, ns, "r", "restoreFrom", r -> {
            r.getSpec().restoreFrom = new dev.crucible.api.v1alpha1.rollout.RestoreFromSpec();
            r.getSpec().restoreFrom.snapshotName = "s1";
        });
        refused(client, ns, "r", "patches", r -> {
            var p = new dev.crucible.api.v1alpha1.rollout.PatchSpec();
            p.path = "a.txt";
            p.content = "x";
            r.getSpec().patches = List.of(p);
        });
        refused(client, ns, "r", "environmentRef", r -> r.getSpec().environmentRef.name = "other");

        // Read on every reconcile: accepted.
        Rollout edited = accepted(client, ns, "r", r -> {
            r.getSpec().snapshotPolicy.keep = 5;
            r.getSpec().deleteSnapshotsOnDelete = true;
        });
        assertThat(edited.getSpec().snapshotPolicy.keep).isEqualTo(5);
        assertThat(edited.getSpec().deleteSnapshotsOnDelete).isTrue();

        // A rollout created without limits cannot gain them either.
        Manifests.rollout(client, ns, "bare", "env", "");
        refused(client, ns, "bare", "limits", r -> {
            r.getSpec().limits = new LimitsSpec();
            r.getSpec().limits.maxTurns = 5;
        });
        Rollout bare = accepted(client, ns, "bare", r -> {
            r.getSpec().snapshotPolicy = new SnapshotPolicySpec();
            r.getSpec().snapshotPolicy.intervalSeconds = 120;
        });
        assertThat(bare.getSpec().snapshotPolicy.intervalSeconds).isEqualTo(120);
    }

    @Test
    void secondClientSideApplyOfAnEnvironmentWithListItemsIsUnchanged() throws Exception {
        KubeBinaries binaries = KubeBinaries.find();
        org.junit.jupiter.api.Assumptions.assumeTrue(binaries != null && binaries.has("kubectl"), KubeBinaries.MISSING);
        String ns = SharedCluster.namespace("apply");
        Path file = Files.createTempFile("env", ".yaml");
        // Every list of objects in the RLEnvironment schema: verifier.components, additionalVerifiers,
        // topology.roles, each item without the fields that once had a schema default.
        Files.writeString(file, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: composite
                  namespace: %s
                spec:
                  image: example/python-calc:3.11
                  task:
                    prompt: fix divide()
                  verifier:
                    type: composite
                    rewardMode: weighted
                    components:
                      - name: tests
                        type: test-suite
                        framework: pytest
                        command: python3 -m pytest -q
                        failToPass: [tests/test_ops.py::test_divide_negative]
                      - name: lint
                        type: assertion
                        command: ruff check .
                  additionalVerifiers:
                    - name: style
                      type: assertion
                      command: ruff check .
                  topology:
                    roles:
                      - name: worker
                """.formatted(ns));
        try {
            String first = kubectl(binaries, "apply", "-f", file.toString());
            assertThat(first).contains("rlenvironment.crucible.dev/composite created");
            String second = kubectl(binaries, "apply", "-f", file.toString());
            assertThat(second).contains("rlenvironment.crucible.dev/composite unchanged");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String kubectl(KubeBinaries binaries, String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(binaries.binary("kubectl").toString(),
                "--kubeconfig", SharedCluster.cluster().kubeconfig().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kubectl " + String.join(" ", args) + ": " + out).isZero();
        return out;
    }
}
