package dev.crucible.cli.probe;

import dev.crucible.probe.ProbeServerMain;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve a probe model over HTTP (POST /v1/score, GET /v1/models, /metrics, /healthz).")
final class ProbeServeCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, description = "probe directory (probe.json)")
    Path model;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "address to listen on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 exposes it to the network)")
    String host;

    @Option(names = "--port", defaultValue = "8080")
    int port;

    @Option(names = "--device", defaultValue = "auto", description = "auto, cpu or cuda")
    String device;

    @Option(names = "--max-request-tokens", description = "compute budget: tokens one request may cover (default: "
            + "16384)")
    Integer maxRequestTokens;

    @Option(names = "--max-concurrent", description = "requests scored at once; more get 503 + Retry-After (default: 16)")
    Integer maxConcurrent;

    @Override
    public Integer call() throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--model", model.toString(), "--host", host,
                "--port", String.valueOf(port), "--device", device));
        if (maxRequestTokens != null) {
            args.addAll(java.util.List.of("--max-request-tokens", String.valueOf(maxRequestTokens)));
        }
        if (maxConcurrent != null) {
            args.addAll(java.util.List.of("--max-concurrent", String.valueOf(maxConcurrent)));
        }
        try {
            ProbeServerMain.serve(args.toArray(String[]::new));
            return 0;
        } catch (ProbeServerMain.StartupFailure e) {
            System.err.println("crucible probe serve: " + e.getMessage());
            return e.exitCode();
        }
    }

}
