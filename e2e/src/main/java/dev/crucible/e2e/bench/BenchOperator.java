package dev.crucible.e2e.bench;

/**
 * The operator {@link ControlPlaneBenchmark} measures: in the benchmark's own JVM ({@link InProcessBenchOperator},
 * plain JOSDK) or as deployed ({@link DeployedOperator}: the Quarkus fast-jar in its own process with the
 * chart's JVM options), so that the figures of both come out of the same lines.
 */
interface BenchOperator extends AutoCloseable {

    /** Grows with every write the operator sends; unchanged for 2 s means its writers are quiet. */
    long writeActivity();

    /** The operator's writes since the start or the last {@link #resetWrites()}. */
    WriteCounter writes();

    void resetWrites();

    /** Reconcile queue depth now, for the progress lines. */
    long queueDepth();

    /** One stderr line: the operator's own create→pods (from its first sight of each Rollout) and series count. */
    String ownTimings();

    /** Prometheus series the operator exports (does not grow with N). */
    long metricsSeries();

    /** Heap in use after a full GC: the operator's live set (the benchmark's watches must be dropped first). */
    long heapMib() throws Exception;

    /** CPU seconds since the operator started and its RSS now. */
    ProcessStats stats();

    /** Peak RSS (VmHWM) of the operator's process, -1 where it shares the benchmark's JVM. */
    long peakRssMib();

    /** What the stats cover, for the stderr line beside them. */
    String describe();

    @Override
    void close();
}
