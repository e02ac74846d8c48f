package dev.crucible.verifier.main;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.api.ApiToken;
import dev.crucible.verifier.api.EnvironmentApi;
import dev.crucible.verifier.api.EpisodeHolder;
import dev.crucible.verifier.api.SidecarMetrics;
import dev.crucible.verifier.config.ConfigException;
import dev.crucible.verifier.exec.shim.ShimExecutor;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The verifier sidecar: serves the environment API for one rollout pod.
 *
 * <pre>
 * --env FILE            RLEnvironment manifest (YAML/JSON, whole document or spec)   required
 * --workspace DIR       the agent's workspace (shared volume)                         required
 * --port N              listen port (default 8080; 0 = any free port)
 * --host ADDR           listen address (default 0.0.0.0)
 * --state-dir DIR       pristine copy, grading trees, results; must be a volume the agent
 *                       container does not mount (default: a private temp directory)
 * --token-file FILE     the API's bearer token: read from FILE when it exists, else a new one is
 *                       written there (mode 0600); default: a new one in a private temp file,
 *                       whose path is printed. There is no way to serve without a token.
 * --max-body BYTES      request size limit (default 2 MiB)
 * --step-timeout S      default bash timeout (60); --max-step-timeout S caps requests (600)
 * --max-output BYTES    observation limit per step (65536)
 * --max-steps N         turn limit (0 = none)
 * --scan-interval-ms N  workspace scan period (1000); --process-interval-ms N (250)
 * --run-setup           run spec.setup.script at the first reset
 * --exec-socket PATH    run commands through the in-container exec shim listening there
 *                       (default: run them here, in the sidecar's own container)
 * --grading-dir DIR     where grading trees and reports are built; with the shim, a volume the
 *                       environment container mounts at the same path (default: --state-dir)
 * </pre>
 */
public final class SidecarMain {
    private SidecarMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 && dev.crucible.verifier.pod.PodSettings.present(System.getenv())) {
            System.exit(runInPod());
            return;
        }
        Map<String, String> o;
        Environment env;
        EpisodeOptions opts;
        try {
            o = parse(args);
            env = Environment.load(Path.of(require(o, "env")));
            opts = options(o);
            if (!java.nio.file.Files.isDirectory(Path.of(require(o, "workspace")))) {
                throw new IllegalArgumentException("--workspace " + o.get("workspace") + ": no such directory");
            }
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("crucible-sidecar: " + e.getMessage());
            System.exit(2);
            return;
        }
        EpisodeHolder holder = new EpisodeHolder(env, Path.of(require(o, "workspace")), opts);
        Vertx vertx = Vertx.vertx();
        SidecarMetrics metrics = new SidecarMetrics(holder::monitorCpuSeconds);
        Path tokenFile;
        ApiToken token;
        try {
            tokenFile = o.containsKey("token-file") ? Path.of(o.get("token-file"))
                    : Files.createTempDirectory("crucible-sidecar-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
                            .resolve("api-token");
            if (Files.exists(tokenFile)) {
                token = ApiToken.read(tokenFile);
            } else {
                token = ApiToken.generate();
                token.writeTo(tokenFile);
            }
        } catch (IllegalArgumentException | java.io.IOException e) {
            System.err.println("crucible-sidecar: --token-file: " + e.getMessage());
            System.exit(2);
            return;
        }
        EnvironmentApi api = new EnvironmentApi(vertx, holder, metrics, Long.parseLong(o.getOrDefault("max-body", "" + EnvironmentApi.DEFAULT_MAX_BODY)), token);
        api.listen(o.getOrDefault("host", "0.0.0.0"), Integer.parseInt(o.getOrDefault("port", "8080")))
                .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("crucible-sidecar: bearer token in " + tokenFile);
        System.out.println("crucible-sidecar: environment " + env.name() + " on port " + api.port());
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            holder.close(); // kills agent processes started through steps and removes state
            vertx.close();
            done.countDown();
        }));
        done.await();
    }

    /** Inside a rollout pod the operator configures the sidecar through CRUCIBLE_* variables. */
    private static int runInPod() throws Exception {
        dev.crucible.verifier.pod.PodSettings settings;
        dev.crucible.verifier.pod.PodTrace trace;
        try {
            settings = dev.crucible.verifier.pod.PodSettings.fromEnvironment(System.getenv());
            trace = dev.crucible.verifier.pod.PodTrace.fromEnvironment(System.getenv(), settings.warm());
        } catch (IllegalArgumentException e) {
            System.err.println("crucible-sidecar: " + e.getMessage());
            return 2;
        }
        try {
            ApiToken.read(settings.apiTokenFile()); // never serve without a token: a bad one ends here, one line
        } catch (IllegalArgumentException e) {
            System.err.println("crucible-sidecar: CRUCIBLE_API_TOKEN_FILE: " + e.getMessage());
            return 2;
        }
        String result = new dev.crucible.verifier.pod.PodSidecar(settings, trace, Duration.ofMillis(500)).run();
        System.out.println("crucible-sidecar: " + result);
        return 0;
    }

    static EpisodeOptions options(Map<String, String> o) {
        EpisodeOptions d = EpisodeOptions.defaults();
        EpisodeOptions opts = d.withRunSetup(o.containsKey("run-setup"))
                .withIntervals(Duration.ofMillis(num(o, "scan-interval-ms", 1000)), Duration.ofMillis(num(o, "process-interval-ms", 250)))
                .withStepLimits((int) num(o, "max-output", d.maxStepOutputBytes()), Duration.ofSeconds(num(o, "step-timeout", 60)),
                        Duration.ofSeconds(num(o, "max-step-timeout", 600)), (int) num(o, "max-steps", 0));
        if (o.containsKey("exec-socket")) opts = opts.withExecutor(new ShimExecutor(Path.of(o.get("exec-socket"))));
        if (o.containsKey("grading-dir")) opts = opts.withGradingDir(Path.of(o.get("grading-dir")));
        return o.containsKey("state-dir") ? opts.withStateDir(Path.of(o.get("state-dir"))) : opts;
    }

    static Map<String, String> parse(String[] args) {
        List<String> flags = List.of("run-setup");
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
            String k = args[i].substring(2);
            if (flags.contains(k)) {
                m.put(k, "true");
            } else {
                if (i + 1 >= args.length) throw new IllegalArgumentException("--" + k + ": needs a value");
                m.put(k, args[++i]);
            }
        }
        return m;
    }

    private static String require(Map<String, String> o, String k) {
        String v = o.get(k);
        if (v == null) throw new IllegalArgumentException("--" + k + ": required (usage: --env FILE --workspace DIR [--port N])");
        return v;
    }

    private static long num(Map<String, String> o, String k, long def) {
        String v = o.get(k);
        if (v == null) return def;
        try {
            long n = Long.parseLong(v);
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + k + ": expected a non-negative number, got '" + v + "'");
        }
    }
}
