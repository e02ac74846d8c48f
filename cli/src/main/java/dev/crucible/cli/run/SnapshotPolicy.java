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
        return env != null && !env.isBlank() ? Path.of(env) : dev.crucible.files.UserHome.path().resolve(".cache/crucible/snapshots");
    }

    /**
     * Why {@code --snapshot-every} must not start on this machine, or null. Issue 34: CRIU cannot dump a bubblewrap
     * box (snapshot-agent/README, "What is missing"), so the snapshot-able sandbox ({@link Namespaces}) ran the agent
     * outside it: no user namespace, every capability of the CLI's user (as root: host root), the host's files, and the
     * snapshot sealing key ({@code keyFile}) with which it could forge sealed snapshots. A snapshot-able box (its own
     * user namespace, no capabilities) that CRIU dumps and restores is not built yet, so the mode is refused on every
     * machine, before anything runs, naming the alternative.
     */
    public static String refusal(Path keyFile, boolean criuFound) {
        String user = System.getProperty("user.name");
        return "refused before anything ran: the agent of a snapshot-able run cannot be kept in its box here. CRIU cannot dump a"
                + " bubblewrap box, and outside it the agent would run as " + user + " with no user namespace"
                + ("root".equals(user) ? " and every capability (host root)" : " and all of " + user + "'s rights")
                + ", able to read the snapshot sealing key " + keyFile + " and forge sealed snapshots"
                + (criuFound ? "" : "; besides, " + dev.crucible.snapshot.criu.CriuBinary.MISSING)
                + ". Use workspace-only snapshots instead: run without --snapshot-every (the agent stays in its box and its final"
                + " workspace is kept in OUT/sandbox/workspace, to start a new environment from), or in a cluster a RolloutSnapshot"
                + " with include: {memory: false}";
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
