package dev.crucible.verifier.pod;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.SidecarMetrics;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Runs a pool pod's claim path once before any claim, so its classes are loaded when the claim comes: on the real
 * node a claimed sidecar took 2.6–3.9 s from seeing its claim to listening, its JVM loading the API's classes in a
 * CPU-limited container. An environment API on a throwaway episode holder (never reset: no episode, no monitor),
 * with a random token no one else has, listens on loopback only, answers one /healthz from here and is closed.
 * Best effort: a failure here only leaves the classes to be loaded after the claim.
 */
final class ClaimPathWarmUp {
    private ClaimPathWarmUp() {
    }

    static void run(Vertx vertx, Environment env, Path workspace, EpisodeOptions options) {
        long start = System.nanoTime();
        try (EpisodeHolder holder = new EpisodeHolder(env, workspace, options)) {
            EnvironmentApi api = new EnvironmentApi(vertx, holder, new SidecarMetrics(() -> 0.0), EnvironmentApi.DEFAULT_MAX_BODY,
                    ApiToken.generate());
            int port = api.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).actualPort();
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                in.readAllBytes();
            } finally {
                api.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            System.err.println("crucible-sidecar: claim path warmed up in " + (System.nanoTime() - start) / 1_000_000 + " ms");
        } catch (Exception e) {
            System.err.println("crucible-sidecar: claim path warm-up skipped: " + e);
        }
    }
}
