package dev.crucible.cli.run;

import java.time.Duration;

/** {@code port}: 0 for an ephemeral one (interactive); {@code heartbeat}: how often a Running line is printed; {@code snapshots}: null
 * for a plain run (bubblewrap), else snapshot-able ({@link SnapshotPolicy}); {@code printToken}: the API's token to stdout too, not only its 0600 file. */
public record AttemptOptions(boolean sandbox, int port, Duration heartbeat, SnapshotPolicy snapshots, boolean printToken) {
    public AttemptOptions(boolean sandbox, int port, Duration heartbeat) { this(sandbox, port, heartbeat, null); }
    public AttemptOptions(boolean sandbox, int port, Duration heartbeat, SnapshotPolicy snapshots) { this(sandbox, port, heartbeat, snapshots, false); }
    public static AttemptOptions defaults() { return new AttemptOptions(true, 0, Duration.ofSeconds(5)); }
}
