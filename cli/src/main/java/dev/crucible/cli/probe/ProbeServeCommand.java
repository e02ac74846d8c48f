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

    @Option(names = "--port", defaultValue = "8080")
    int port;

    @Option(names = "--device", defaultValue = "auto", description = "auto, cpu or cuda")
    String device;

    @Override
    public Integer call() throws Exception {
        ProbeServerMain.main(new String[] {"--model", model.toString(), "--port", String.valueOf(port),
                "--device", device});
        return 0;
    }
}
