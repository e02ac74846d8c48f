package dev.crucible.operator.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether the operator is ready, given which of its watches are unhealthy now (pure; one instance per
 * process, called at each readiness probe). A watch that is briefly unhealthy is an informer
 * reconnecting (the API server closed the watch, a relist after "too old resource version"): the
 * informer recovers by itself and the operator's cache stays usable, so readiness stays up for
 * {@code grace}. Only a watch unhealthy for longer turns readiness down. Each change is said once,
 * at WARN, with the cause (issue 41's soak: readiness went down 19 times in 22 minutes, each time for
 * a watch "briefly unhealthy", logged only at INFO by the SDK).
 */
public final class WatchReadiness {

    /** The verdict of one probe, and what to log for it (each line once per episode). */
    public record Verdict(boolean ready, Map<String, String> down, List<String> warnings) {
    }

    private final Duration grace;
    /** Per unhealthy watch: when it was first seen unhealthy, and whether its readiness-down was said. */
    private final Map<String, Instant> since = new HashMap<>();
    private final Map<String, Boolean> saidDown = new HashMap<>();

    public WatchReadiness(Duration grace) {
        this.grace = grace;
    }

    /** @param unhealthy watch name → why it is unhealthy (e.g. "namespace team-a: watching=false") */
    public synchronized Verdict observe(Map<String, String> unhealthy, Instant now) {
        List<String> warnings = new ArrayList<>();
        for (var it = since.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!unhealthy.containsKey(e.getKey())) {
                long s = Duration.between(e.getValue(), now).toSeconds();
                warnings.add("watch " + e.getKey() + " healthy again after " + s + " s"
                        + (Boolean.TRUE.equals(saidDown.get(e.getKey())) ? "; ready again" : " (readiness was kept)"));
                saidDown.remove(e.getKey());
                it.remove();
            }
        }
        Map<String, String> down = new TreeMap<>();
        for (var e : new TreeMap<>(unhealthy).entrySet()) {
            Instant first = since.get(e.getKey());
            if (first == null) {
                since.put(e.getKey(), now);
                first = now;
                warnings.add("watch " + e.getKey() + " unhealthy: " + e.getValue() + "; readiness kept for up to "
                        + grace.toSeconds() + " s while its informer reconnects");
            }
            Duration unhealthyFor = Duration.between(first, now);
            if (unhealthyFor.compareTo(grace) >= 0) {
                down.put(e.getKey(), e.getValue());
                if (saidDown.put(e.getKey(), true) == null) {
                    warnings.add("readiness down: watch " + e.getKey() + " unhealthy for " + unhealthyFor.toSeconds()
                            + " s (grace " + grace.toSeconds() + " s): " + e.getValue());
                }
            }
        }
        return new Verdict(down.isEmpty(), down, warnings);
    }
}
