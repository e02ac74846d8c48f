package dev.crucible.verifier.api;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.EpisodeStateException;
import dev.crucible.verifier.ResetResult;
import dev.crucible.verifier.monitor.Finding;
import java.nio.file.Path;
import java.util.List;

/** The sidecar's one episode: created lazily at the first reset, reused by later resets. */
public final class EpisodeHolder implements AutoCloseable {
    private final Environment env;
    private final Path workspace;
    private final EpisodeOptions options;
    private volatile Episode episode;

    public EpisodeHolder(Environment env, Path workspace, EpisodeOptions options) {
        this.env = env;
        this.workspace = workspace;
        this.options = options;
    }

    public ResetResult reset() {
        Episode e;
        synchronized (this) {
            if (episode == null) episode = new Episode(env, workspace, options);
            e = episode;
        }
        return e.reset();
    }

    public Episode current() {
        Episode e = episode;
        if (e == null) throw new EpisodeStateException("no episode yet: POST /v1/reset first");
        return e;
    }

    public List<Finding> findings() { return episode == null ? List.of() : episode.findings(); }

    public String state() { return episode == null ? "NEW" : episode.state().name(); }

    public double monitorCpuSeconds() {
        Episode e = episode;
        return e == null || e.monitor() == null ? 0 : e.monitor().cpuNanos() / 1e9;
    }

    @Override
    public synchronized void close() {
        if (episode != null) episode.close();
    }
}
