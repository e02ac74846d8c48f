package dev.crucible.e2e.bench;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The objects the control-plane benchmarks create: the three environments (cpu, gpu, gang) and the Rollouts' names and specs. */
final class BenchmarkObjects {
    private BenchmarkObjects() {
    }

    static String name(int i) {
        return String.format("ro-%05d", i);
    }

    static void environments(KubernetesClient client, String ns, BenchmarkWorkload load) {
        String common = """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  image: example/env:1
                  task: {prompt: fix the bug}
                  verifier: {type: test-suite, framework: pytest, command: pytest -q, protectedPaths: ["tests/**"]}
                  sandbox: {runtimeClassName: gvisor}
                """;
        client.resource(client.getKubernetesSerialization().unmarshal(common.formatted("cpu", ns)
                + "  resources: {cpu: 100m, memory: 128Mi}\n", RLEnvironment.class)).create();
        client.resource(client.getKubernetesSerialization().unmarshal(common.formatted("gpu", ns)
                + "  resources: {cpu: 100m, memory: 128Mi, gpus: 1}\n", RLEnvironment.class)).create();
        client.resource(client.getKubernetesSerialization().unmarshal(common.formatted("gang", ns)
                + "  resources: {cpu: 100m, memory: 128Mi}\n"
                + "  topology: {roles: [{name: trainer, replicas: " + load.gangReplicas() + ", gpusPerReplica: "
                + load.gpusPerGangMember() + "}]}\n", RLEnvironment.class)).create();
    }

    static Rollout rollout(KubernetesClient client, String ns, String name, String environment) {
        return client.getKubernetesSerialization().unmarshal("""
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata: {name: %s, namespace: %s}
                spec:
                  environmentRef: {name: %s}
                  mode: embedded
                  agent: {command: [agent, --task, /crucible/task.md]}
                  limits: {maxDurationSeconds: 86400}
                """.formatted(name, ns, environment), Rollout.class);
    }
}
