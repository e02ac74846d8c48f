package dev.crucible.cli.probe;

import dev.crucible.probe.export.ExportException;
import dev.crucible.probe.export.ExportParity;
import dev.crucible.probe.export.ModelExporter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Turns a Hugging Face model directory (config.json, weights, tokenizer) into a reference model "
                + "the probe server loads (model.onnx with every hidden state as an output, tokenizer.json, "
                + "reference.json) and checks the served pipeline against PyTorch; exit 1 when parity fails, "
                + "2 when the model cannot be exported")
final class ProbeExportCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, description = "Hugging Face model directory (encoder or causal decoder)")
    Path model;

    @Option(names = "--out", required = true, description = "reference model directory to write")
    Path out;

    @Mixin
    PythonOption python;

    @Option(names = "--max-tokens", defaultValue = "0",
            description = "tokens per sequence the server keeps (default: the model's position limit, at most 2048)")
    int maxTokens;

    @Option(names = "--tolerance", defaultValue = "1e-3",
            description = "largest |java - torch| allowed in a pooled hidden state (default: ${DEFAULT-VALUE})")
    double tolerance;

    // the optimiser's fused graph is what parity is checked on; --no-fuse keeps the traced one
    @Option(names = "--no-fuse", description = "keep the traced ONNX graph of an encoder instead of ONNX Runtime's "
            + "transformer-fused one (attention, LayerNorm, GELU)")
    boolean noFuse;

    @Override
    public Integer call() throws Exception {
        ModelExporter.Exported e;
        ExportParity.Result parity;
        try {
            e = ModelExporter.export(model, out, python.find(), maxTokens, !noFuse);
            parity = ExportParity.check(out, 0);
        } catch (ExportException | java.io.IOException | ai.onnxruntime.OrtException ex) {
            System.err.println("error: " + ex.getMessage());
            return 2;
        }
        System.out.println("exported " + e.model().architecture() + " (" + e.model().kind().name().toLowerCase()
                + ", " + e.model().numHiddenStates() + " hidden states x " + e.model().hiddenSize() + ") to " + out
                + " with torch " + e.torch() + ", transformers " + e.transformers() + "; fused: " + e.fused());
        System.out.println(parity.line(tolerance));
        if (!parity.passes(tolerance)) {
            System.err.println("error: the exported model does not match PyTorch within " + tolerance);
            return 1;
        }
        return 0;
    }
}
