package dev.crucible.cli.probe;

import dev.crucible.probe.bench.BenchResult;
import dev.crucible.probe.bench.ForwardBench;
import dev.crucible.probe.bench.TorchBench;
import dev.crucible.probe.model.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Reference forward pass tokens/s in Java (ONNX Runtime) against PyTorch on the same model, "
                + "batch and threads, in the same run; prints one line "
                + "java_tokens_s=... torch_tokens_s=... ratio=... head_share=... cpu_ratio=... load=...")
final class ProbeBenchCommand implements Callable<Integer> {
    @Option(names = "--model", description = "reference model directory (default: the bundled tiny model)")
    Path model;

    @Option(names = "--batch", defaultValue = "16")
    int batch;

    @Option(names = "--seq", defaultValue = "128", description = "tokens per sequence")
    int seq;

    @Option(names = "--seconds", defaultValue = "3", description = "timing window per side and round")
    double seconds;

    // alternating rounds: on a shared machine one window per side measures the neighbours' load
    @Option(names = "--rounds", defaultValue = "4", description = "rounds of one window per side, alternating "
            + "which goes first; figures are medians (default: 4)")
    int rounds;

    // one thread by default: on a shared machine OpenMP's spinning threads in torch (and ORT's
    // thread pool) degrade by 10x under contention, which would measure the neighbours, not the model
    @Option(names = "--threads", defaultValue = "1", description = "threads for both sides (default: 1)")
    int threads;

    @Option(names = "--device", defaultValue = "auto", description = "auto, cpu or cuda")
    String device;

    @Mixin
    PythonOption python;

    @Override
    public Integer call() throws Exception {
        Path dir = model != null ? model : findBundled();
        if (dir == null) {
            System.err.println("no --model given and probe-server/src/test/resources/tiny-model not found");
            return 2;
        }
        if (batch < 1 || seq < 1 || rounds < 1 || !(seconds > 0)) {
            System.err.println("--batch, --seq, --rounds and --seconds must be positive");
            return 2;
        }
        ForwardBench.Options o = new ForwardBench.Options(batch, seq, seconds, rounds,
                threads, Device.parse(device));
        BenchResult r = ForwardBench.run(dir, o, TorchBench.discover(python.find()));
        System.err.println("device=" + r.device() + " batch=" + batch + "x" + seq + " threads=" + o.threads()
                + " rounds=" + r.rounds() + "x" + seconds + "s per side; " + r.torchNote());
        System.out.println(r.line());
        return 0;
    }

    private static Path findBundled() {
        Path d = Path.of("").toAbsolutePath();
        while (d != null) {
            Path c = d.resolve("probe-server/src/test/resources/tiny-model");
            if (Files.isRegularFile(c.resolve("reference.json"))) {
                return c;
            }
            d = d.getParent();
        }
        return null;
    }
}
