package dev.crucible.controllers.rollout;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The last lines of each container's log, kept in the ConfigMap {@code <rollout>-logs} before the
 * operator deletes a pod (issue 41's soak: the sidecar's and the agent's logs went with the pod). The
 * ConfigMap is owned by the Rollout, so it lives as long as the Rollout's result and goes with it.
 *
 * <p>Bounded twice: the kubelet is asked for {@code tailLines}/{@code limitBytes}, and what comes back
 * is cut to the same byte budget again (the log is the untrusted agent's output). The budget per
 * container shrinks with the number of containers so the ConfigMap stays far below the API server's
 * 1 MiB object limit. A log that cannot be read (no kubelet, pod gone, no permission) is noted in its
 * key and never holds up the deletion: the reads run in parallel off the reconcile thread and are given
 * up after {@link #READ_BUDGET} (the API server dials the node's kubelet, which on a lost node takes
 * its dial timeout, 30 s, per container).
 */
final class PodLogTail {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PodLogTail.class);

    /** Lines asked of the kubelet per container. */
    static final int TAIL_LINES = 200;
    /** All tails of one Rollout together stay under this (the API server refuses objects over 1 MiB). */
    static final int ROLLOUT_BUDGET_BYTES = 512 * 1024;
    /** How long a reconcile waits for all tails of the pods it stops. */
    static final Duration READ_BUDGET = Duration.ofSeconds(5);
    /** Reads in flight, all Rollouts together; past it a tail is skipped, never queued behind a lost node. */
    private static final ThreadPoolExecutor READERS = new ThreadPoolExecutor(0, 16, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "crucible-log-tail");
                t.setDaemon(true);
                return t;
            });

    private PodLogTail() {
    }

    static String configMapName(String rollout) {
        return rollout + "-logs";
    }

    /** Reads the tails of every container of {@code pods} and adds them to the Rollout's ConfigMap. */
    static void keep(Rollout rollout, List<Pod> pods, int bytesPerContainer, KubernetesClient client) {
        if (bytesPerContainer <= 0 || pods.isEmpty()) {
            return;
        }
        int containers = pods.stream().mapToInt(p -> p.getSpec().getContainers().size()).sum();
        int bytes = Math.max(1024, Math.min(bytesPerContainer, ROLLOUT_BUDGET_BYTES / Math.max(1, containers)));
        Map<String, Future<String>> reads = new TreeMap<>();
        Map<String, String> data = new TreeMap<>();
        for (Pod p : pods) {
            for (Container c : p.getSpec().getContainers()) {
                String key = p.getMetadata().getName() + "." + c.getName() + ".log";
                try {
                    reads.put(key, READERS.submit(() -> read(p, c.getName(), bytes, client)));
                } catch (RejectedExecutionException e) {
                    data.put(key, "(log not read: " + READERS.getMaximumPoolSize() + " reads already in flight)");
                }
            }
        }
        long deadline = System.nanoTime() + READ_BUDGET.toNanos();
        for (var e : reads.entrySet()) {
            try {
                data.put(e.getKey(), e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException x) {
                e.getValue().cancel(true);
                data.put(e.getKey(), "(log not read within " + READ_BUDGET.toSeconds() + " s)");
            } catch (ExecutionException x) {
                data.put(e.getKey(), "(log not read: " + x.getCause() + ")");
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        try {
            store(rollout, data, client);
        } catch (KubernetesClientException e) {
            LOG.warn("Rollout {}/{}: container logs not kept in {}: {}", rollout.getMetadata().getNamespace(),
                    rollout.getMetadata().getName(), configMapName(rollout.getMetadata().getName()), e.getMessage());
        }
    }

    private static String read(Pod p, String container, int bytes, KubernetesClient client) {
        try {
            String log = client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                    .inContainer(container).limitBytes(bytes).tailingLines(TAIL_LINES).getLog();
            return lastBytes(log == null ? "" : log, bytes);
        } catch (KubernetesClientException e) {
            return "(log not read: " + e.getCode() + " " + e.getMessage() + ")";
        }
    }

    /** The end of {@code log} within {@code bytes} of UTF-8, cut at a line start where there is one. */
    static String lastBytes(String log, int bytes) {
        byte[] b = log.getBytes(StandardCharsets.UTF_8);
        if (b.length <= bytes) {
            return log;
        }
        int from = b.length - bytes;
        while (from < b.length && (b[from] & 0xC0) == 0x80) {
            from++; // not inside a multi-byte character
        }
        String tail = new String(b, from, b.length - from, StandardCharsets.UTF_8);
        int nl = tail.indexOf('\n');
        return "(cut to the last " + bytes + " bytes)\n" + (nl >= 0 && nl < tail.length() - 1 ? tail.substring(nl + 1) : tail);
    }

    /** Adds the keys: a pod deleted earlier (a gang member, a second reconcile) keeps its tail. */
    private static void store(Rollout rollout, Map<String, String> data, KubernetesClient client) {
        String ns = rollout.getMetadata().getNamespace();
        String name = configMapName(rollout.getMetadata().getName());
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(ns)
                .withLabels(Map.of(RolloutLabels.ROLLOUT, rollout.getMetadata().getName(),
                        RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE))
                .withOwnerReferences(OwnerReferences.ownedBy(rollout)).endMetadata()
                .withData(data).build();
        try {
            client.configMaps().inNamespace(ns).resource(cm).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            client.configMaps().inNamespace(ns).withName(name).edit(old -> {
                Map<String, String> merged = new TreeMap<>(old.getData() == null ? Map.of() : old.getData());
                merged.putAll(data);
                old.setData(merged);
                return old;
            });
        }
    }

    /** The pods {@link RolloutActuator#stopPods} is about to delete. */
    static List<Pod> toStop(Map<String, Pod> observed) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : observed.values()) {
            if (RolloutStateMachine.stillRunning(p)) {
                out.add(p);
            }
        }
        return out;
    }
}
