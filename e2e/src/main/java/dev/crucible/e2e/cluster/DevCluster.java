package dev.crucible.e2e.cluster;

/**
 * Starts the local control plane (API server, scheduler, kwok, fake nodes, CRDs) and keeps it up until
 * killed, printing the kubeconfig path: for poking at the operator's objects with kubectl.
 * Usage: {@code java -cp ... dev.crucible.e2e.cluster.DevCluster [cpuNodes gpuNodes] [--operator]}.
 */
public final class DevCluster {

    private DevCluster() {
    }

    public static void main(String[] args) throws Exception {
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println(KubeBinaries.MISSING);
            System.exit(2);
        }
        LocalCluster cluster = LocalCluster.start(binaries);
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        CrdInstaller.install(cluster.client());
        cluster.startScheduler();
        cluster.startKwok();
        FakeNodes.create(cluster.client(), args.length > 1 ? Integer.parseInt(args[0]) : 3,
                args.length > 1 ? Integer.parseInt(args[1]) : 3, 8);
        if (java.util.Arrays.asList(args).contains("--operator")) {
            new InProcessOperator(cluster.newClient(), dev.crucible.controllers.config.OperatorSettings.defaults()).start();
            System.out.println("operator started");
        }
        System.out.println("KUBECONFIG=" + cluster.kubeconfig());
        System.out.println("logs in " + cluster.workDir());
        Thread.currentThread().join();
    }
}
