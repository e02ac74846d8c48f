package dev.crucible.cli.probe;

import dev.crucible.probe.python.ProbePython;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** --python for bench and export: the probe Python, found as {@link ProbePython#find} says when absent. */
final class PythonOption {
    @Option(names = "--python", description = "python with torch, transformers, onnx (default: $"
            + ProbePython.ENV + ", else ~/.venvs/probe/bin/python)")
    Path python;

    Path find() {
        return ProbePython.find(python);
    }
}
