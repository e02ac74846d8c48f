package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What one single-pod Rollout costs the API server once its environment's shared objects exist: its pod,
 * a Running status and its final status, and nothing else (no finalizer, no ConfigMap, Secret,
 * NetworkPolicy or Event of its own; Pending is not written when the pod runs within a second). Counted
 * from watches of every kind the operator writes in the namespace, so a write the operator adds later
 * shows up here by kind.
 */
class WriteBudgetOnApiServerTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    @Test
    void aSinglePodRolloutIsThreeWrites() throws Exception {
        String ns = SharedCluster.namespace("budget");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        // The first Rollout of the environment writes what its Rollouts share.
        Manifests.rollout(client, ns, "first", "calc", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "first") == PhaseName.Running);

        List<String> writes = new CopyOnWriteArrayList<>();
        List<Watch> watches = new ArrayList<>();
        try {
            // From now on (a resourceVersion is the store's revision): what exists is not replayed as ADDED.
            ListOptions now = new ListOptionsBuilder()
                    .withResourceVersion(client.pods().inNamespace(ns).list().getMetadata().getResourceVersion()).build();
            watches.add(client.resources(Rollout.class).inNamespace(ns).watch(now, counter("rollout", writes, true)));
            watches.add(client.pods().inNamespace(ns).watch(now, counter("pod", writes, false)));
            watches.add(client.configMaps().inNamespace(ns).watch(now, counter("configmap", writes, true)));
            watches.add(client.secrets().inNamespace(ns).watch(now, counter("secret", writes, true)));
            watches.add(client.network().v1().networkPolicies().inNamespace(ns).watch(now, counter("networkpolicy", writes, true)));
            watches.add(client.services().inNamespace(ns).watch(now, counter("service", writes, true)));
            watches.add(client.v1().events().inNamespace(ns).watch(now, counter("event", writes, true)));

            Manifests.rollout(client, ns, "second", "calc", "");
            await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "second") == PhaseName.Running);
            Manifests.verifierExits(client, ns, "second-main-0", """
                    {"reward":1.0,"verdict":"pass","tests":{"passed":1,"failed":0,"skipped":0,"total":1},
                    "hackFindings":[],"turns":3,"phase":"Succeeded"}""");
            await().atMost(Duration.ofSeconds(30)).until(() -> phase(ns, "second") == PhaseName.Succeeded);
            Thread.sleep(2000); // anything written after the end would show up here
        } finally {
            watches.forEach(Watch::close);
        }
        Rollout second = client.resources(Rollout.class).inNamespace(ns).withName("second").get();
        List<String> operators = writes.stream().filter(w -> !w.equals("rollout ADDED " + ns + "/second")).toList(); // ours: the create
        List<String> mine = operators.stream().filter(w -> w.endsWith("/second") || w.contains("/second-")).toList();
        assertThat(operators).as("the operator's writes in the namespace").containsExactlyElementsOf(mine);
        assertThat(second.getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(mine).filteredOn(w -> w.startsWith("pod ")).containsExactly("pod ADDED " + ns + "/second-main-0");
        // Running, then Succeeded; a pod slower than StartupStatusHold's second to start adds the steps before
        Duration start = Duration.between(Instant.parse(second.getStatus().timings.podsCreatedAt),
                Instant.parse(second.getStatus().timings.runningAt));
        long statusWrites = mine.stream().filter(w -> w.startsWith("rollout MODIFIED")).count();
        assertThat(statusWrites).as("status writes %s (the pod started in %s)", mine, start)
                .isBetween(2L, start.compareTo(Duration.ofSeconds(1)) > 0 ? 4L : 2L);
        assertThat(mine).as("the Rollout's writes").hasSize((int) statusWrites + 1);
        assertThat(second.getStatus().timings.createToPodsMillis).as("timed, though Pending was never written").isNotNull();
    }

    static PhaseName phase(String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    /**
     * Records "kind ACTION namespace/name" for each change; for pods only ADDED counts as the operator's
     * (the scheduler binds and kwok writes their status), for events those about a Rollout (the operator's).
     */
    private static <T extends HasMetadata> Watcher<T> counter(String kind, List<String> writes, boolean everyChange) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, T resource) {
                String name = resource.getMetadata().getName();
                if (resource instanceof io.fabric8.kubernetes.api.model.Event e) {
                    if (!"Rollout".equals(e.getInvolvedObject().getKind())) {
                        return; // about a pod: the scheduler's or the kubelet's
                    }
                    name = e.getInvolvedObject().getName();
                }
                if (everyChange || action == Action.ADDED) {
                    writes.add(kind + " " + action + " " + resource.getMetadata().getNamespace() + "/" + name);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }
}
