package dev.crucible.cli.run;

import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.SidecarMetrics;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** An interactive attempt's environment API: the sidecar's own server, on 127.0.0.1 with a token of its own. */
final class LocalEnvironmentApi {
    private LocalEnvironmentApi() {}

    /**
     * Listens on {@code port} (0: an ephemeral one) with a new token, written 0600 to the attempt folder:
     * 127.0.0.1 is reachable by every local user, so the API needs one. The terminal names the file, never
     * the token, unless {@code printToken}: standard output is often a log that other local users can read.
     */
    static EnvironmentApi open(Vertx vertx, EpisodeHolder holder, AttemptDir dir, int port, boolean printToken, Progress progress) throws Exception {
        ApiToken token = ApiToken.generate();
        Path tokenFile = token.writeTo(dir.apiToken());
        EnvironmentApi api = new EnvironmentApi(vertx, holder, new SidecarMetrics(holder::monitorCpuSeconds), EnvironmentApi.DEFAULT_MAX_BODY, token);
        api.listen("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        progress.info(printToken
                ? "environment API token: " + token.value() + " (send Authorization: Bearer <token>; also in " + tokenFile + ", mode 0600)"
                : "environment API token in " + tokenFile + " (mode 0600; send Authorization: Bearer <its content>; --print-token prints it)");
        return api;
    }
}
