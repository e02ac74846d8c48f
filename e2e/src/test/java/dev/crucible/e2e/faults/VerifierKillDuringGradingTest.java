package dev.crucible.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 41 point 3, API-server tier: the verifier container is SIGKILLed during grading. The pod's
 * verifier uses {@code terminationMessagePolicy: File}, so the kubelet reports what the sidecar had
 * written to {@code /dev/termination-log} when it died, with exit code 137: nothing (killed while
 * grading, or before it while the agent still runs), a torn write (killed while writing), or the whole
 * result (killed after writing). kwok runs
 * no containers, so the test writes those container states as the kubelet does. The reward must be the
 * real one or none with a reason, never one read from a partial run. Prints the suite's line
 * (e2e/faults/README.md); wrong_reward counts a reward that is not the real one and a Rollout ended
 * without a reward and without a reason.
 */
class VerifierKillDuringGradingTest {

    private static final String RESULT = "{\"reward\":1.0,\"verdict\":\"pass\",\"turns\":3,\"tests\":{\"passed\":3,\"failed\":0}}";

    /** What the kubelet reports for the verifier: exit code, termination message, and the reward that is right. */
    private record Kill(String name, int exitCode, String message, Double reward, boolean agentStillRuns) {
        Kill(String name, int exitCode, String message, Double reward) {
            this(name, exitCode, message, reward, false);
        }
    }

    private static final List<Kill> CASES = List.of(
            new Kill("graded", 0, RESULT, 1.0),
            new Kill("killed-after-result", 137, RESULT, 1.0),
            new Kill("killed-while-grading", 137, null, null),
            new Kill("killed-while-writing", 137, RESULT.substring(0, RESULT.indexOf("\"tests\"") + 20), null),
            // before grading: the agent still works when its verifier dies
            new Kill("killed-before-grading", 137, null, null, true));

    @Test
    void aVerifierKilledDuringGradingGivesTheRealRewardOrNoneWithAReason() {
        SharedCluster.operator();
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("verifier-kill");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        Map<String, Kill> rollouts = new LinkedHashMap<>();
        for (int round = 0; round < 2; round++) {
            for (Kill k : CASES) {
                String name = k.name() + "-" + round;
                rollouts.put(name, k);
                Manifests.rollout(client, ns, name, "calc", "limits: {maxDurationSeconds: 600}");
            }
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> rollouts.keySet().stream()
                .allMatch(n -> phase(client, ns, n) == PhaseName.Running));

        long fault = System.nanoTime();
        rollouts.forEach((name, k) -> verifierEnds(client, ns, name + "-main-0", k));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && !rollouts.keySet().stream()
                .allMatch(n -> phase(client, ns, n) != null && phase(client, ns, n).isTerminal())) {
            sleep(200);
        }
        double recovery = (System.nanoTime() - fault) / 1e9;

        int lost = 0;
        int stuck = 0;
        int wrong = 0;
        List<String> why = new ArrayList<>();
        for (var e : rollouts.entrySet()) {
            Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(e.getKey()).get();
            if (r == null) {
                lost++;
                continue;
            }
            var s = r.getStatus();
            if (s == null || s.phase == null || !s.phase.isTerminal()) {
                stuck++;
                why.add("stuck: " + e.getKey() + " " + (s == null ? null : s.phase + "/" + s.reason));
                continue;
            }
            Double want = e.getValue().reward();
            boolean right = want == null ? s.reward == null && s.reason != null && !s.reason.isBlank()
                    : want.equals(s.reward);
            if (!right) {
                wrong++;
                why.add("wrong_reward: " + e.getKey() + " " + s.phase + "/" + s.reason + " reward=" + s.reward + " (want " + want + ")");
            }
            if (want == null) {
                System.out.println("  " + e.getKey() + ": " + s.phase + "/" + s.reason + ": " + s.message);
            }
        }
        System.out.println(String.format(Locale.ROOT,
                "fault=verifier-kill-during-grading rollouts=%d lost=%d duplicated=0 wrong_reward=%d stuck=%d recovery_s=%.1f",
                rollouts.size(), lost, wrong, stuck, recovery));
        why.forEach(System.out::println);
        assertThat(why).as("every Rollout ends with its real reward, or none with a reason").isEmpty();
        assertThat(lost).isZero();
    }

    /** The kubelet's report: the agent ended (grading starts after it), the verifier ended as {@code k} says. */
    private static void verifierEnds(KubernetesClient client, String ns, String pod, Kill k) {
        client.pods().inNamespace(ns).withName(pod).editStatus(p -> {
            List<ContainerStatus> statuses = new ArrayList<>();
            for (ContainerStatus cs : p.getStatus().getContainerStatuses()) {
                boolean verifier = cs.getName().equals("verifier");
                if (verifier || cs.getName().equals("agent") && !k.agentStillRuns()) {
                    int exit = verifier ? k.exitCode() : 0;
                    statuses.add(new ContainerStatusBuilder(cs).withReady(false).withStarted(false)
                            .withNewState().withNewTerminated().withExitCode(exit).withReason(exit == 0 ? "Completed" : "Error")
                            .withSignal(exit == 137 ? 9 : null)
                            .withMessage(verifier ? k.message() : null)
                            .withStartedAt(p.getStatus().getStartTime()).withFinishedAt(p.getStatus().getStartTime())
                            .endTerminated().endState().build());
                } else {
                    statuses.add(cs);
                }
            }
            p.getStatus().setContainerStatuses(statuses);
            return p;
        });
    }

    private static PhaseName phase(KubernetesClient client, String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
