package dev.crucible.e2e;

import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import dev.crucible.e2e.cluster.LocalSnapshotAgents;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * One real control plane (etcd + kube-apiserver + kube-scheduler + kwok with 3 CPU and 3 GPU nodes of
 * 8 GPUs) and one in-process operator, shared by all test classes of this JVM. Each test takes its own
 * namespace. Skips, with the reason, when the binaries are missing.
 */
public final class SharedCluster {

    public static final int GPU_NODES = 3;
    public static final int GPUS_PER_NODE = 8;
    public static final OperatorSettings SETTINGS = OperatorSettings.defaults().withVerifierImage("crucible/verifier:test");

    /** Snapshot agents for the fake nodes; tests start agents and bind pods to local processes. */
    public static final LocalSnapshotAgents AGENTS = new LocalSnapshotAgents();

    private static LocalCluster cluster;
    private static InProcessOperator operator;
    private static RuntimeException failure;
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private SharedCluster() {
    }

    /** The cluster without the operator (for API-server-only tests). */
    public static synchronized LocalCluster cluster() {
        KubeBinaries binaries = KubeBinaries.find();
        Assumptions.assumeTrue(binaries != null, KubeBinaries.MISSING);
        if (failure != null) {
            throw failure;
        }
        if (cluster == null) {
            try {
                cluster = LocalCluster.start(binaries);
                CrdInstaller.install(cluster.client());
                cluster.startScheduler();
                cluster.startKwok();
                FakeNodes.create(cluster.client(), 3, GPU_NODES, GPUS_PER_NODE);
                Runtime.getRuntime().addShutdownHook(new Thread(SharedCluster::shutdown));
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            }
        }
        return cluster;
    }

    /** The cluster with the operator running. */
    public static synchronized InProcessOperator operator() {
        LocalCluster c = cluster();
        if (operator == null) {
            operator = new InProcessOperator(c.newClient(), SETTINGS, AGENTS).start();
        }
        return operator;
    }

    /** Stops the operator (as a crash or rollout of the operator would) and starts a fresh one. */
    public static synchronized InProcessOperator restartOperator() {
        if (operator != null) {
            operator.close();
            operator.client().close();
            operator = null;
        }
        return operator();
    }

    public static synchronized void stopOperator() {
        if (operator != null) {
            operator.close();
            operator.client().close();
            operator = null;
        }
    }

    public static KubernetesClient client() {
        return cluster().client();
    }

    /** A fresh namespace for one test. */
    public static String namespace(String prefix) {
        String name = prefix + "-" + NAMESPACES.incrementAndGet();
        client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        return name;
    }

    private static synchronized void shutdown() {
        if (operator != null) {
            operator.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
