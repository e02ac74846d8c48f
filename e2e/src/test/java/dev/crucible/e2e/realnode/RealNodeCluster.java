package dev.crucible.e2e.realnode;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.fail;

/**
 * The one-node cluster of {@code e2e/real-node/up}, as a test reaches it: runs {@code up} (which starts
 * only what is not running, so a running cluster is reused) and connects with the kubeconfig it prints.
 * {@code up} names the first thing the machine lacks on one line and exits 1: those reasons skip the
 * tier; any other failure (a component that does not become ready) fails it.
 */
final class RealNodeCluster {

    /** The kubeconfig of the cluster this JVM brought up (or found running), until it is stopped; else null. */
    private static volatile Path upKubeconfig;

    /** up's one-line reasons for a machine that cannot run a kubelet (see e2e/real-node/up). */
    private static final Pattern MISSING = Pattern.compile(
            "must run as root|no overlay filesystem|cgroup controller mounted|not found|jar missing");

    private RealNodeCluster() {
    }

    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("e2e/real-node"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("e2e/real-node not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** Runs {@code up}; skips the calling class when the machine lacks what a kubelet needs. */
    static Path up() throws IOException, InterruptedException {
        return up("");
    }

    /**
     * Runs {@code up} with more chart values (space-separated KEY=VALUE, CRUCIBLE_REAL_NODE_VALUES): the chart is
     * installed again with them, and again without them by the next class's plain {@link #up()}.
     */
    static Path up(String chartValues) throws IOException, InterruptedException {
        Assumptions.assumeFalse("off".equals(System.getenv("CRUCIBLE_REAL_NODE")),
                "real-node tier turned off by CRUCIBLE_REAL_NODE=off");
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"),
                "real-node tier needs Linux (a kubelet, containerd, runc)");
        Result r = script("up", 900, Map.of("CRUCIBLE_REAL_NODE_VALUES", chartValues));
        if (r.code != 0) {
            String reason = lastLine(r.err);
            if (MISSING.matcher(reason).find()) {
                // Surefire drops the message of a class-level abort: print it where the run shows it.
                System.err.println("real-node tier skipped: " + reason);
                Assumptions.abort("real-node tier skipped: " + reason);
            }
            fail("e2e/real-node/up failed (exit " + r.code + "): " + reason + "\n" + tail(r.err));
        }
        Path kubeconfig = Path.of(lastLine(r.out));
        if (!Files.isRegularFile(kubeconfig)) {
            fail("e2e/real-node/up printed no kubeconfig path: '" + lastLine(r.out) + "'");
        }
        upKubeconfig = kubeconfig;
        return kubeconfig;
    }

    static KubernetesClient client(Path kubeconfig) throws IOException {
        Config config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    static boolean isUp() {
        return upKubeconfig != null;
    }

    /**
     * Called by each class's {@code @AfterAll} with its class. CI (CRUCIBLE_REAL_NODE_DOWN=1) stops the cluster after
     * the tier, a person keeps it for the next run. While another tagged class of the plan is still to run
     * ({@link RealNodeSession}) the cluster is kept for it: only the namespaces this class deleted are waited out,
     * so that the next class finds the node as a fresh cluster would (its pods gone, their CPU and memory free).
     */
    static void downIfAsked(Class<?> caller) throws IOException, InterruptedException {
        if (RealNodeSession.othersPending(caller)) {
            awaitNamespacesDeleted();
            return;
        }
        if ("1".equals(System.getenv("CRUCIBLE_REAL_NODE_DOWN"))) {
            upKubeconfig = null;
            Result r = script("down", 300, Map.of());
            if (r.code != 0) {
                fail("e2e/real-node/down failed (exit " + r.code + "): " + tail(r.err));
            }
        }
    }

    /**
     * Waits (at most 3 min) until no pod is terminating or left in a terminating namespace: a down would have killed them
     * at once. A namespace that stays (a finalizer) is not this tier's concern, and did not hold up a down either.
     */
    private static void awaitNamespacesDeleted() throws IOException {
        Path kubeconfig = upKubeconfig;
        if (kubeconfig == null) return;
        long t0 = System.nanoTime();
        try (KubernetesClient c = client(kubeconfig)) {
            Awaitility.await("pods of deleted namespaces gone").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        Set<String> deleting = c.namespaces().list().getItems().stream()
                                .filter(n -> n.getMetadata().getDeletionTimestamp() != null)
                                .map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
                        return c.pods().inAnyNamespace().list().getItems().stream().noneMatch(p -> p.getMetadata().getDeletionTimestamp() != null
                                || deleting.contains(p.getMetadata().getNamespace()));
                    });
            System.out.printf("real-node tier: cluster kept for the next class (deleted pods gone in %.1f s)%n", (System.nanoTime() - t0) / 1e9);
        } catch (ConditionTimeoutException e) {
            System.out.println("real-node tier: cluster kept for the next class; pods still terminating after 3 min: " + e.getMessage());
        }
    }

    record Result(int code, String out, String err) {
    }

    private static Result script(String name, long timeoutSeconds, Map<String, String> env) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("real-node-" + name);
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        ProcessBuilder pb = new ProcessBuilder(List.of("bash", repoRoot().resolve("e2e/real-node/" + name).toString()))
                .directory(repoRoot().toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            fail("e2e/real-node/" + name + " did not finish in " + timeoutSeconds + " s: " + tail(Files.readString(err)));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static String lastLine(String s) {
        String[] lines = s.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }

    private static String tail(String s) {
        return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
    }
}
