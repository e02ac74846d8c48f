package dev.crucible.e2e;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/** Environments and rollouts written as a user would, and a stand-in for the verifier sidecar. */
public final class Manifests {

    private Manifests() {
    }

    public static RLEnvironment environment(KubernetesClient client, String ns, String name, String extraSpec) {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  image: example/python-calc:3.11
                  task:
                    prompt: fix divide()
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: python3 -m pytest -q
                    failToPass: [tests/test_ops.py::test_divide_negative]
                    passToPass: [tests/test_ops.py::test_add]
                    protectedPaths: ["tests/**", conftest.py]
                  sandbox:
                    runtimeClassName: gvisor
                    network:
                      egress: allow-list
                      allow: ["10.1.0.0/16:443"]
                %s
                """.formatted(name, ns, extraSpec.indent(2));
        RLEnvironment env = client.getKubernetesSerialization().unmarshal(yaml, RLEnvironment.class);
        return client.resource(env).create();
    }

    public static Rollout rollout(KubernetesClient client, String ns, String name, String environment, String extraSpec) {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  environmentRef:
                    name: %s
                  mode: embedded
                  agent:
                    image: example/agent:1
                    command: ["agent", "--task", "/crucible/task.md"]
                %s
                """.formatted(name, ns, environment, extraSpec.indent(2));
        Rollout r = client.getKubernetesSerialization().unmarshal(yaml, Rollout.class);
        return client.resource(r).create();
    }

    /** What the kubelet reports when the verifier sidecar exits after writing its result to /dev/termination-log. */
    public static void verifierExits(KubernetesClient client, String ns, String pod, String resultJson) {
        client.pods().inNamespace(ns).withName(pod).editStatus(p -> {
            List<ContainerStatus> statuses = new ArrayList<>();
            for (ContainerStatus cs : p.getStatus().getContainerStatuses()) {
                if (cs.getName().equals("verifier") || cs.getName().equals("agent")) {
                    statuses.add(new ContainerStatusBuilder(cs).withReady(false).withStarted(false)
                            .withNewState().withNewTerminated().withExitCode(0).withReason("Completed")
                            .withMessage(cs.getName().equals("verifier") ? resultJson : null)
                            .withStartedAt(p.getStatus().getStartTime()).withFinishedAt(p.getStatus().getStartTime())
                            .endTerminated().endState().build());
                } else {
                    statuses.add(cs);
                }
            }
            p.getStatus().setContainerStatuses(statuses);
            return p;
        });
    }

    public static List<Pod> podsOf(KubernetesClient client, String ns, String rollout) {
        return client.pods().inNamespace(ns).withLabel("crucible.dev/rollout", rollout).list().getItems();
    }
}
