package dev.crucible.cli.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Periodic snapshots of a local rollout ({@code --snapshot-every}, {@code --snapshot-keep},
 * {@code --snapshot-store}): every {@code every} the agent's tree and attempt folder are
 * snapshotted into {@code store}; only the newest {@code keep} of the attempt are kept.
 * {@code every} null: no periodic snapshots, but the run is still snapshot-able on demand.
 */
public record SnapshotPolicy(Duration every, int keep, Path store) {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

    /** The default image store, shared with {@code crucible snapshot take|list}. */
    public static Path defaultStore() {
        String env = System.getenv("CRUCIBLE_SNAPSHOTS");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "crucible", "snapshots");
    }

    /** "30s", "5m", "1h", "500ms"; null with a reason in the exception otherwise. */
    public static Duration parseDuration(String field, String text) {
        Matcher m = DURATION.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(field + ": expected a duration such as 30s, 5m, 1h or 500ms, got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
        if (d.compareTo(Duration.ofMillis(500)) < 0) {
            throw new IllegalArgumentException(field + ": must be at least 500ms (each snapshot freezes the agent), got '" + text + "'");
        }
        return d;
    }
}
