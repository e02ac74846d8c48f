package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.GroupSpec;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 41 point 3 on a real kubelet: the verifier sidecar's process is SIGKILLed (from the host, by pid, as the OOM
 * killer or a node's runtime would) while it grades. The agent fixes the bug and makes the code under test sleep 20 s at
 * import, so grading runs for a while; once the agent's container has exited and a pytest process runs in the pod, the
 * verifier container's JVM gets SIGKILL. The kubelet reports exit 137 with whatever the sidecar had written as its
 * termination message; the Rollout's reward must be the real one (1.0) or none, with a phase and reason that say so.
 * Prints the fault suite's line (e2e/faults/README.md).
 */
@Tag(RealNodeSession.TAG)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class VerifierKillRealNodeTest {
    private static final String NS = "crucible-real-verifier-kill";
    private static final Path EXAMPLE = RealNodeCluster.repoRoot().resolve("examples/python-bugfix");
    private static KubernetesClient client;

    @BeforeAll
    static void startCluster() throws Exception {
        client = RealNodeCluster.client(RealNodeCluster.up());
        if (client.namespaces().withName(NS).get() != null) {
            client.namespaces().withName(NS).delete();
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> client.namespaces().withName(NS).get() == null);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("environment.yaml").toFile())) {
            client.load(in).inNamespace(NS).create();
        }
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (client != null) {
            client.namespaces().withName(NS).delete();
            client.close();
        }
        RealNodeCluster.downIfAsked(VerifierKillRealNodeTest.class);
    }

    @Test
    void aVerifierSigkilledWhileGradingGivesTheRealRewardOrNoneWithAReason() throws Exception {
        String name = "verifier-kill";
        Rollout r;
        try (InputStream in = new FileInputStream(EXAMPLE.resolve("rollout.yaml").toFile())) {
            r = client.resources(Rollout.class).load(in).item();
        }
        r.getMetadata().setName(name);
        r.getSpec().agent.command = List.of("sh", "-c", "sh ../agents/honest.sh && printf 'import time\\ntime.sleep(20)\\n' >> calc/ops.py");
        r.getSpec().group = new GroupSpec();
        r.getSpec().group.id = name;
        r.getSpec().group.attempt = 0;
        client.resources(Rollout.class).inNamespace(NS).resource(r).create();

        Pod pod = Awaitility.await("the agent's container exited").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
                .until(() -> onePod(name), p -> p != null && terminated(p, RolloutLabels.AGENT_CONTAINER).isPresent());
        assertThat(terminated(pod, RolloutLabels.VERIFIER_CONTAINER)).as("the verifier already ended: nothing to kill while grading").isEmpty();
        String podUid = pod.getMetadata().getUid();
        String verifierId = status(pod, RolloutLabels.VERIFIER_CONTAINER).orElseThrow().getContainerID().replaceFirst("^[a-z]+://", "");
        long grading = Awaitility.await("a pytest process grading in the pod").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> pids(podUid, "pytest").findFirst().orElse(-1L), pid -> pid > 0);
        long verifier = pids(verifierId, "java").findFirst().orElseThrow(() -> new AssertionError("no JVM in container " + verifierId));
        long killedAt = System.nanoTime();
        assertThat(ProcessHandle.of(verifier).orElseThrow().destroyForcibly()).as("SIGKILL sent to pid " + verifier).isTrue();
        System.out.println("verifier-kill-real-node: SIGKILL to the verifier's JVM pid " + verifier + " while pytest pid " + grading + " graded");

        ContainerStatus killed = Awaitility.await("the kubelet reports the verifier's end").atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(200)).until(() -> Optional.ofNullable(onePod(name))
                        .flatMap(p -> terminated(p, RolloutLabels.VERIFIER_CONTAINER)).orElse(null), s -> s != null);
        assertThat(killed.getState().getTerminated().getExitCode()).as("exit code of a SIGKILLed container").isEqualTo(137);

        Rollout done = Awaitility.await("a terminal phase").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> client.resources(Rollout.class).inNamespace(NS).withName(name).get(),
                        x -> x != null && x.getStatus() != null && x.getStatus().phase != null && switch (x.getStatus().phase) {
                            case Succeeded, Failed, Hacked, TimedOut -> true;
                            default -> false;
                        });
        double recoverySeconds = (System.nanoTime() - killedAt) / 1e9;
        String status = Serialization.asJson(done.getStatus());
        boolean real = done.getStatus().phase == PhaseName.Succeeded && Double.valueOf(1.0).equals(done.getStatus().reward);
        boolean noneWithReason = done.getStatus().reward == null && done.getStatus().phase == PhaseName.Failed
                && done.getStatus().reason != null && !done.getStatus().reason.isBlank()
                && done.getStatus().message != null && !done.getStatus().message.isBlank();
        System.out.printf("fault=verifier-kill-real-node rollouts=1 lost=0 duplicated=0 wrong_reward=%d stuck=0 recovery_s=%.1f"
                + " phase=%s reason=%s reward=%s%n", real || noneWithReason ? 0 : 1, recoverySeconds, done.getStatus().phase,
                done.getStatus().reason, done.getStatus().reward);
        assertThat(real || noneWithReason).as("the real reward (1.0) or none with a reason: %s", status).isTrue();
        // the killed sidecar's log outlives its pod too (the pod still ran its other containers: the operator stopped it)
        LogTailAssertions.assertKept(client, NS, name, "passed");
    }

    private Pod onePod(String rollout) {
        List<Pod> pods = client.pods().inNamespace(NS).withLabels(RolloutLabels.forRollout(rollout)).list().getItems();
        return pods.isEmpty() ? null : pods.get(0);
    }

    private static Optional<ContainerStatus> status(Pod p, String container) {
        return p.getStatus() == null || p.getStatus().getContainerStatuses() == null ? Optional.empty()
                : p.getStatus().getContainerStatuses().stream().filter(s -> container.equals(s.getName())).findFirst();
    }

    private static Optional<ContainerStatus> terminated(Pod p, String container) {
        return status(p, container).filter(s -> s.getState() != null && s.getState().getTerminated() != null);
    }

    /** Host pids whose cgroup path names {@code cgroupPart} (a pod uid or a container id) and whose command line has {@code word}. */
    private static Stream<Long> pids(String cgroupPart, String word) throws IOException {
        String uidUnderscored = cgroupPart.replace('-', '_'); // the systemd driver's spelling of a pod uid
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String cgroup = Files.readString(p.resolve("cgroup"));
                    if (!cgroup.contains(cgroupPart) && !cgroup.contains(uidUnderscored)) return false;
                    return new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ').contains(word);
                } catch (IOException e) {
                    return false; // gone meanwhile
                }
            }).map(p -> Long.parseLong(p.getFileName().toString())).sorted().toList().stream();
        }
    }
}
