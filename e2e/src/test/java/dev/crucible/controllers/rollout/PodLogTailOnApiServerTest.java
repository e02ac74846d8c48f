package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.FileInputStream;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41's soak: the sidecar's and the agent's logs went with the pod the operator deleted at the
 * end. {@link RolloutActuator#stopPods} (package-private, hence this package) must first keep each
 * container's tail in {@code <rollout>-logs}, bounded, owned by the Rollout. The real API server serves
 * {@code pods/log} by calling the node's kubelet; kwok nodes have none, so the node here points at a
 * small HTTPS stand-in for the kubelet's {@code /containerLogs} endpoint (the real kubelet is the
 * real-node tier). The stand-in ignores the limits on purpose: the operator must bound an untrusted
 * agent's log itself. A third container's log never comes in time: the pod is deleted anyway.
 */
class PodLogTailOnApiServerTest {

    private static final int BYTES = 4096;

    @TempDir
    Path tmp;

    @Test
    void aStoppedPodsContainerLogsAreKeptWithTheRolloutBoundedAndMerged() throws Exception {
        KubernetesClient client = SharedCluster.cluster().client();
        String ns = SharedCluster.namespace("logtail");
        List<String> asked = new CopyOnWriteArrayList<>();
        HttpsServer kubelet = fakeKubelet(asked);
        String nodeName = "logtail-" + ns;
        try {
            Node node = node(nodeName, kubelet.getAddress().getPort());
            client.nodes().resource(node).create();
            client.nodes().withName(nodeName).editStatus(n -> {
                n.setStatus(node.getStatus());
                return n;
            });
            Manifests.environment(client, ns, "env", "");
            Rollout r = Manifests.rollout(client, ns, "r1", "env", "");
            Pod first = client.resource(pod(ns, "r1-main-0", nodeName)).create();

            long t0 = System.nanoTime();
            new RolloutActuator(SharedCluster.SETTINGS.withLogTailBytes(BYTES), () -> null)
                    .stopPods(r, Map.of(first.getMetadata().getName(), first), client);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            // the hung container's kubelet answers after 60 s: the delete must not wait for it
            assertThat(tookMs).as("ms stopPods took with one log hung").isLessThan(PodLogTail.READ_BUDGET.toMillis() + 10_000);

            Pod after = client.pods().inNamespace(ns).withName("r1-main-0").get();
            assertThat(after == null || after.getMetadata().getDeletionTimestamp() != null).as("pod deleted").isTrue();
            ConfigMap cm = client.configMaps().inNamespace(ns).withName("r1-logs").get();
            assertThat(cm).as("ConfigMap r1-logs").isNotNull();
            assertThat(cm.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getUid()).isEqualTo(r.getMetadata().getUid()));
            String agentLog = cm.getData().get("r1-main-0.agent.log");
            assertThat(agentLog).as("the agent's tail").startsWith("(cut to the last " + BYTES + " bytes)")
                    .endsWith("agent line 2999 " + "x".repeat(20) + "\n")
                    .doesNotContain("agent line 0 ");
            assertThat(agentLog.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(BYTES + 64);
            assertThat(cm.getData().get("r1-main-0." + RolloutLabels.VERIFIER_CONTAINER + ".log"))
                    .isEqualTo("sidecar: graded, reward 1.0\n");
            assertThat(cm.getData().get("r1-main-0.hung.log")).isEqualTo("(log not read within 5 s)");
            assertThat(asked).as("the kubelet was asked for a bounded tail")
                    .anySatisfy(q -> assertThat(q).contains("/containerLogs/" + ns + "/r1-main-0/agent")
                            .contains("tailLines=" + PodLogTail.TAIL_LINES).contains("limitBytes=" + BYTES));

            // a second member stopped later (a gang, a second reconcile) adds its keys, the first's stay
            Pod second = client.resource(pod(ns, "r1-main-1", nodeName)).create();
            new RolloutActuator(SharedCluster.SETTINGS.withLogTailBytes(BYTES), () -> null)
                    .stopPods(r, Map.of(second.getMetadata().getName(), second), client);
            assertThat(client.configMaps().inNamespace(ns).withName("r1-logs").get().getData())
                    .containsKeys("r1-main-0.agent.log", "r1-main-1.agent.log");
        } finally {
            for (String p : List.of("r1-main-0", "r1-main-1")) {
                client.pods().inNamespace(ns).withName(p).withGracePeriod(0).delete();
            }
            client.nodes().withName(nodeName).delete();
            kubelet.stop(0);
        }
    }

    private static Pod pod(String ns, String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(ns)
                .withLabels(RolloutLabels.forRollout("r1")).endMetadata()
                .withNewSpec().withNodeName(node)
                .addNewContainer().withName(RolloutLabels.AGENT_CONTAINER).withImage("example/agent:1").endContainer()
                .addNewContainer().withName(RolloutLabels.VERIFIER_CONTAINER).withImage("crucible/verifier:test").endContainer()
                .addNewContainer().withName("hung").withImage("example/hung:1").endContainer()
                .endSpec().build();
    }

    private static Node node(String name, int port) throws Exception {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress(localIp()).endAddress()
                .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(port).endKubeletEndpoint().endDaemonEndpoints()
                .endStatus().build();
    }

    /** A non-loopback address of this machine: the API server may refuse to proxy to loopback. */
    private static String localIp() throws Exception {
        for (NetworkInterface i : NetworkInterface.networkInterfaces().toList()) {
            if (i.isUp() && !i.isLoopback()) {
                for (var a : i.getInterfaceAddresses()) {
                    if (a.getAddress() instanceof Inet4Address) {
                        return a.getAddress().getHostAddress();
                    }
                }
            }
        }
        return "127.0.0.1";
    }

    /** The kubelet's log endpoint as the API server calls it, with a self-signed certificate (it does not verify kubelets here). */
    private HttpsServer fakeKubelet(List<String> asked) throws Exception {
        Path ks = tmp.resolve("kubelet.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "kubelet", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=kubelet",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", "changeit")
                .redirectErrorStream(true).start();
        assertThat(keytool.waitFor()).as(new String(keytool.getInputStream().readAllBytes())).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(ks.toFile())) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress("0.0.0.0", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ssl));
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool()); // the hung answer blocks no other
        server.createContext("/containerLogs/", ex -> {
            asked.add(ex.getRequestURI().toString());
            String path = ex.getRequestURI().getPath();
            StringBuilder body = new StringBuilder();
            if (path.endsWith("/hung")) {
                try {
                    Thread.sleep(60_000); // a kubelet that never answers in time (a node going away)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (path.endsWith("/" + RolloutLabels.AGENT_CONTAINER)) {
                for (int i = 0; i < 3000; i++) { // ~100 KB, limits ignored: the operator must cut it
                    body.append("agent line ").append(i).append(' ').append("x".repeat(20)).append('\n');
                }
            } else {
                body.append("sidecar: graded, reward 1.0\n");
            }
            byte[] b = body.toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        return server;
    }
}
