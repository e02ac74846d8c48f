package dev.crucible.e2e.realnode;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One real-node cluster per test JVM: the classes tagged {@value #TAG} that a test plan holds share the
 * cluster that the first of them brings up ({@link RealNodeCluster#up}), and only the last of them stops it
 * (CRUCIBLE_REAL_NODE_DOWN=1), in its own {@code @AfterAll}, so a failing {@code down} still fails a test.
 * Each up and down took ~50 s and ~18 s: four classes paid them four times. Registered through
 * META-INF/services; where no plan was seen (another launcher), every class stops the cluster as before.
 * If a plan ends with the cluster still up (a class that never reached its {@code @AfterAll}), it is stopped here.
 */
public final class RealNodeSession implements TestExecutionListener {
    static final String TAG = "real-node";

    /** Names of the tagged classes of the running plan that have not finished yet; null when no plan was seen. */
    private static volatile Set<String> pending;

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        Set<String> classes = ConcurrentHashMap.newKeySet();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier id : plan.getDescendants(root)) {
                String name = taggedClass(id);
                if (name != null) classes.add(name);
            }
        }
        pending = classes;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        finished(id);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        finished(id);
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        pending = null;
        if (RealNodeCluster.isUp()) {
            try {
                RealNodeCluster.downIfAsked(null);
            } catch (Exception | AssertionError e) { // nothing is left to fail: say it where the run shows it
                System.err.println("real-node tier: down after the last class failed: " + e.getMessage());
            }
        }
    }

    /** Whether another tagged class of this plan, not {@code caller}, is still to run: then the cluster is kept for it. */
    static boolean othersPending(Class<?> caller) {
        Set<String> p = pending;
        if (p == null) return false;
        if (caller != null) p.remove(caller.getName());
        return !p.isEmpty();
    }

    private static void finished(TestIdentifier id) {
        Set<String> p = pending;
        String name = taggedClass(id);
        if (p != null && name != null) p.remove(name);
    }

    private static String taggedClass(TestIdentifier id) {
        if (!id.isContainer() || id.getTags().stream().noneMatch(t -> TAG.equals(t.getName()))) return null;
        return id.getSource().filter(ClassSource.class::isInstance).map(s -> ((ClassSource) s).getClassName()).orElse(null);
    }
}
