import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.function.IntToDoubleFunction;

/**
 * The suite's counts for N Rollouts named r0..r{N-1} (member pods rI-ROLE-INDEX, rI-main-0 for one pod), and its
 * line (e2e/faults/README.md): lost, duplicated, wrong_reward, stuck (and wrong_reason, which only node-loss
 * prints: a Rollout must end in a given phase and reason there). Every pod UID ever seen is recorded
 * from a watch of the namespace, so a member deleted and created again (two UIDs for one name) counts
 * as duplicated; a watch the API server closes (it restarts, or answers 410 Gone) is opened again, and
 * the pods listed at the end are added too, so nothing created during a gap is missed as a second name.
 */
final class FaultTally implements AutoCloseable {

    /** @param wrongReason a terminal Rollout whose phase and reason are not the ones expected (node-loss: Failed/NodeLost) */
    record Counts(int lost, int duplicated, int wrongReward, int stuck, int wrongReason) {
        boolean clean() {
            return lost + duplicated + wrongReward + stuck + wrongReason == 0;
        }
    }

    /**
     * How one Rollout must end: with the reward its verifier wrote, or, when no verifier wrote one (reward null),
     * in {@code phase} with {@code reason}; {@code pods}: how many member pods it plans.
     */
    record Expected(int pods, Double reward, PhaseName phase, String reason) {
        static Expected reward(int pods, double reward) {
            return new Expected(pods, reward, null, null);
        }

        static Expected ended(int pods, PhaseName phase, String reason) {
            return new Expected(pods, null, phase, reason);
        }
    }

    private final KubernetesClient k;
    private final String ns;
    private final Map<String, Set<String>> uids = new ConcurrentHashMap<>();
    private volatile Watch watch;
    private volatile boolean closed;

    FaultTally(KubernetesClient k, String ns) {
        this.k = k;
        this.ns = ns;
        watch();
    }

    /** Pod names seen so far. */
    int podNames() {
        return uids.size();
    }

    private void watch() {
        watch = k.pods().inNamespace(ns).watch(new Watcher<Pod>() {
            @Override
            public void eventReceived(Action action, Pod p) {
                record(p);
            }

            @Override
            public void onClose(WatcherException e) {
                if (closed) {
                    return;
                }
                System.err.println("pod watch closed (" + e.getMessage() + "); opening it again");
                for (int attempt = 0; !closed; attempt++) {
                    try {
                        k.pods().inNamespace(ns).list().getItems().forEach(FaultTally.this::record);
                        watch();
                        return;
                    } catch (RuntimeException again) {
                        sleep(Math.min(2_000, 100L << Math.min(attempt, 5)));
                    }
                }
            }
        });
    }

    private void record(Pod p) {
        uids.computeIfAbsent(p.getMetadata().getName(), x -> ConcurrentHashMap.newKeySet()).add(p.getMetadata().getUid());
    }

    /** Counts r0..r{n-1}, one pod each, as they are now; prints why each one counts on stderr. */
    Counts count(int n, IntToDoubleFunction expectedReward) {
        return countEach(n, i -> Expected.reward(1, expectedReward.applyAsDouble(i)));
    }

    /** Counts r0..r{n-1} as they are now against what each must be; prints why each one counts on stderr. */
    Counts countEach(int n, IntFunction<Expected> expected) {
        k.pods().inNamespace(ns).list().getItems().forEach(this::record);
        Map<String, Rollout> byName = new ConcurrentHashMap<>();
        k.resources(Rollout.class).inNamespace(ns).list().getItems().forEach(r -> byName.put(r.getMetadata().getName(), r));
        int lost = 0, duplicated = 0, wrong = 0, stuck = 0, wrongReason = 0;
        for (int i = 0; i < n; i++) {
            String name = "r" + i;
            Expected want = expected.apply(i);
            Rollout r = byName.get(name);
            List<Map.Entry<String, Set<String>>> pods = uids.entrySet().stream().filter(e -> e.getKey().startsWith(name + "-")).toList();
            if (r == null || pods.isEmpty()) {
                lost++;
                System.err.println("lost: " + name + (r == null ? " (no Rollout object)" : " (no pod)"));
                continue;
            }
            if (pods.stream().anyMatch(e -> e.getValue().size() > 1) || pods.size() > want.pods()) {
                duplicated++;
                System.err.println("duplicated: " + name + " pods " + pods);
            }
            if (r.getStatus() == null || r.getStatus().phase == null || !r.getStatus().phase.isTerminal()) {
                stuck++;
                System.err.println("stuck: " + name + " " + (r.getStatus() == null ? "no status" : r.getStatus().phase + "/" + r.getStatus().reason)
                        + "; pod " + describePod(pods.get(0).getKey()));
                continue;
            }
            if (!java.util.Objects.equals(r.getStatus().reward, want.reward())) {
                wrong++;
                System.err.println("wrong_reward: " + name + " reward " + r.getStatus().reward + " expected " + want.reward()
                        + " (" + r.getStatus().phase + "/" + r.getStatus().reason + ")");
            }
            if (want.phase() != null && (r.getStatus().phase != want.phase() || !want.reason().equals(r.getStatus().reason))) {
                wrongReason++;
                System.err.println("wrong_reason: " + name + " " + r.getStatus().phase + "/" + r.getStatus().reason + " ("
                        + r.getStatus().message + ") expected " + want.phase() + "/" + want.reason());
            }
        }
        return new Counts(lost, duplicated, wrong, stuck, wrongReason);
    }

    /** Where the pod itself is (node, phase, containers), to tell a missed event from a pod that never ran. */
    private String describePod(String name) {
        Pod p = k.pods().inNamespace(ns).withName(name).get();
        if (p == null) {
            return "gone";
        }
        var st = p.getStatus();
        return "node=" + p.getSpec().getNodeName() + " phase=" + (st == null ? null : st.getPhase())
                + " rv=" + p.getMetadata().getResourceVersion() + " containers=" + (st == null ? List.of()
                : st.getContainerStatuses().stream().map(cs -> cs.getName() + ":" + (cs.getState().getRunning() != null ? "running"
                : cs.getState().getTerminated() != null ? "terminated" : "waiting")).toList());
    }

    static String line(String fault, int n, Counts c, double recoveryS) {
        return String.format(java.util.Locale.ROOT, "fault=%s rollouts=%d lost=%d duplicated=%d wrong_reward=%d stuck=%d recovery_s=%.1f",
                fault, n, c.lost(), c.duplicated(), c.wrongReward(), c.stuck(), recoveryS);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        watch.close();
    }
}
