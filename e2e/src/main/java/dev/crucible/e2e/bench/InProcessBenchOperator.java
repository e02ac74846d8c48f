package dev.crucible.e2e.bench;

import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.LocalCluster;
import java.lang.management.ManagementFactory;

/**
 * The reconcilers in this JVM (plain JOSDK, no Quarkus), their writes counted on their own client: the
 * benchmark's default. Its heap figure is the heap after GC minus the heap before it started; its CPU and
 * RSS are this JVM's, which also runs the benchmark's clients and watches.
 */
final class InProcessBenchOperator implements BenchOperator {

    private final WriteCounter writes = new WriteCounter();
    private final long heapBefore;
    private final long cpuBefore;
    private final InProcessOperator operator;

    InProcessBenchOperator(LocalCluster cluster) throws InterruptedException {
        heapBefore = usedHeapAfterGc();
        cpuBefore = ProcessStats.jvmCpuNanos();
        operator = new InProcessOperator(cluster.newClient(writes), OperatorSettings.defaults()).start();
    }

    @Override
    public long writeActivity() {
        return writes.total();
    }

    @Override
    public WriteCounter writes() {
        return writes;
    }

    @Override
    public void resetWrites() {
        writes.reset();
    }

    @Override
    public long queueDepth() {
        return operator.queue().depth();
    }

    @Override
    public String ownTimings() {
        var s = operator.metrics().createToPodsSummary().takeSnapshot();
        return String.format("operator-side create->pods (from its first sight, ms clock): mean %.0f ms, max %.0f ms; "
                + "metrics_series=%d", s.mean(), s.max(), metricsSeries());
    }

    @Override
    public long metricsSeries() {
        return operator.scrape().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
    }

    @Override
    public long heapMib() throws Exception {
        long heap = Math.max(0, usedHeapAfterGc() - heapBefore) / (1024 * 1024);
        if (System.getenv("CRUCIBLE_BENCH_HISTOGRAM") != null) {
            System.err.println(heapHistogram(30)); // what the operator's heap holds, the benchmark's watches closed
        }
        return heap;
    }

    @Override
    public ProcessStats stats() {
        return ProcessStats.self(cpuBefore);
    }

    @Override
    public long peakRssMib() {
        return -1;
    }

    @Override
    public String describe() {
        return "this JVM (operator in-process, plus the benchmark's own clients and watches)";
    }

    @Override
    public void close() {
        operator.close();
    }

    /** The top of the JVM's live-object histogram (jcmd GC.class_histogram), for CRUCIBLE_BENCH_HISTOGRAM=1. */
    static String heapHistogram(int lines) throws Exception {
        Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        return text.toString().lines().limit(lines).collect(java.util.stream.Collectors.joining("\n"));
    }

    static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
