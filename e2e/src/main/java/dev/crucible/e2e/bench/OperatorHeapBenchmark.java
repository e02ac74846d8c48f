package dev.crucible.e2e.bench;

import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.TimeUnit;

/**
 * {@code e2e/bench/control-plane --heap-only --rollouts N}: the operator's heap with N Rollouts Running and
 * nothing else in this JVM holding them. The full benchmark watches every pod and Rollout itself to time
 * them (with managed fields), and at 10,000 on 2 cores those watches' backlog filled a 6 GiB heap; here the
 * only watches are the operator's, and Running is read from its own phase count. Prints
 * {@code rollouts=N running=… all_running_s=… operator_heap_mib=… heap_kib_per_rollout=…}.
 */
final class OperatorHeapBenchmark {

    private OperatorHeapBenchmark() {
    }

    static int run(LocalCluster cluster, BenchmarkWorkload load, int cpuNodes, int gpuNodes, int gpusPerNode,
                   int timeoutSeconds) throws Exception {
        KubernetesClient client = ControlPlaneBenchmark.prepare(cluster, load, cpuNodes, gpuNodes, gpusPerNode);

        long heapBefore = InProcessBenchOperator.usedHeapAfterGc();
        InProcessOperator operator = new InProcessOperator(cluster.newClient(), OperatorSettings.defaults()).start();
        long start = System.nanoTime();
        ControlPlaneBenchmark.createAll(client, load, timeoutSeconds, name -> { });
        System.err.printf("created %d rollouts in %.1f s%n", load.total(), (System.nanoTime() - start) / 1e9);
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        long running;
        while ((running = operator.metrics().rolloutsIn(PhaseName.Running)) < load.total() && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            System.err.printf("  t=%.0fs running=%d queue=%d%n", (System.nanoTime() - start) / 1e9, running, operator.queue().depth());
        }
        double allRunning = (System.nanoTime() - start) / 1e9;
        long heap = Math.max(0, InProcessBenchOperator.usedHeapAfterGc() - heapBefore);
        if (System.getenv("CRUCIBLE_BENCH_HISTOGRAM") != null) {
            System.err.println(InProcessBenchOperator.heapHistogram(30));
        }
        System.out.printf("rollouts=%d running=%d all_running_s=%.1f operator_heap_mib=%d heap_kib_per_rollout=%.1f%n",
                load.total(), running, allRunning, heap / (1024 * 1024), heap / 1024.0 / load.total());
        operator.close();
        return running >= load.total() ? 0 : 1;
    }
}
