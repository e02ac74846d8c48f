package dev.crucible.verifier.api;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.EpisodeStateException;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.monitor.Finding;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The sidecar's one episode: created lazily at the first reset, reused by later resets.
 *
 * <p>Findings are append-only for the life of the holder (one rollout): each is recorded here as
 * the monitor reports it, so a {@code /v1/reset} that starts a new episode (and a new monitor)
 * never erases what an earlier episode found. An agent that is caught, undoes its edit and resets
 * still ends with the finding in {@link #findings()} and in the pod result.
 */
public final class EpisodeHolder implements AutoCloseable {
    private final Environment env;
    private final Path workspace;
    private final EpisodeOptions options;
    /** Every finding of every episode; a finding is a record with its time, so a repeat in a later episode is kept too. */
    private final Set<Finding> rolloutFindings = new LinkedHashSet<>();
    private volatile Episode episode;
    private volatile dev.crucible.verifier.monitor.MonitorObserver monitorObserver;

    public EpisodeHolder(Environment env, Path workspace, EpisodeOptions options) {
        this.env = env;
        this.workspace = workspace;
        var forward = options.onFinding();
        this.options = options.withListeners(f -> {
            record(f);
            forward.accept(f);
        }, options.onRevert());
    }

    public ResetResult reset() {
        Episode e;
        synchronized (this) {
            if (episode == null) episode = new Episode(env, workspace, options);
            e = episode;
        }
        ResetResult r = e.reset();
        var o = monitorObserver;
        if (o != null && e.monitor() != null) e.monitor().observe(o); // each reset starts a new monitor
        return r;
    }

    /** What every episode's monitor sees goes to {@code o} from the next reset on (the rollout's trajectory). */
    public void observe(dev.crucible.verifier.monitor.MonitorObserver o) { monitorObserver = o; }

    public Episode current() {
        Episode e = episode;
        if (e == null) throw new EpisodeStateException("no episode yet: POST /v1/reset first");
        return e;
    }

    /** The current episode, or null before the first reset. */
    public Episode currentOrNull() { return episode; }

    /** All findings of this rollout, across resets, in the order they were reported. */
    public List<Finding> findings() {
        Episode e = episode;
        if (e != null) e.findings().forEach(this::record); // a finding the listener has not delivered yet
        synchronized (this) {
            return List.copyOf(rolloutFindings);
        }
    }

    public String state() { return episode == null ? "NEW" : episode.state().name(); }

    public double monitorCpuSeconds() {
        Episode e = episode;
        return e == null || e.monitor() == null ? 0 : e.monitor().cpuNanos() / 1e9;
    }

    private synchronized void record(Finding f) {
        rolloutFindings.add(f);
    }

    @Override
    public synchronized void close() {
        if (episode != null) episode.close();
    }
}
