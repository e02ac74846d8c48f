package dev.crucible.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `probe export` refusals: one line on stderr, non-zero, no stack trace, and no torch needed to see them. */
class ProbeExportCommandTest {

    private static Path bert(Path dir) throws Exception {
        Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["BertModel"], "model_type": "bert", "num_hidden_layers": 2, "hidden_size": 8}""");
        Files.writeString(dir.resolve("model.safetensors"), "");
        return dir;
    }

    private static void assertOneLineError(ProbeCommandTest.Run run, String expected) {
        assertThat(run.code()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("error: ").contains(expected).doesNotContain("\n").doesNotContain("\tat ");
    }

    @Test
    void aDirectoryWithoutConfigJsonIsOneLine(@TempDir Path dir) {
        assertOneLineError(ProbeCommandTest.run("export", "--model", dir.toString(), "--out", dir.resolve("o").toString()),
                "has no config.json");
    }

    @Test
    void anUnsupportedArchitectureIsOneLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "is_encoder_decoder": true}""");
        assertOneLineError(ProbeCommandTest.run("export", "--model", dir.toString(), "--out", dir.resolve("o").toString()),
                "unsupported architecture T5ForConditionalGeneration");
    }

    @Test
    void writingIntoTheModelDirectoryIsRefused(@TempDir Path dir) throws Exception {
        assertOneLineError(ProbeCommandTest.run("export", "--model", bert(dir).toString(), "--out", dir.toString()),
                "--out must not be the model directory");
    }

    @Test
    void noPythonSaysHowToGetOne(@TempDir Path dir) throws Exception {
        assertOneLineError(ProbeCommandTest.run("export", "--model", bert(dir).toString(), "--out",
                dir.resolve("o").toString(), "--python", "/nonexistent/python"), "install-probe-python.sh");
    }

    // a python that runs but has no torch: python3 without site-packages (-S), whatever the machine has installed
    @Test
    void aPythonWithoutTorchNamesWhatIsMissingAndHowToInstallIt(@TempDir Path dir) throws Exception {
        Path python = dir.resolve("python");
        Files.writeString(python, "#!/bin/sh\nexec python3 -S \"$@\"\n");
        Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path model = Files.createDirectory(dir.resolve("m"));
        ProbeCommandTest.Run run = ProbeCommandTest.run("export", "--model", bert(model).toString(), "--out",
                dir.resolve("o").toString(), "--python", python.toString());
        assertOneLineError(run, "lacks torch, transformers, onnx, tokenizers");
        assertThat(run.err()).contains("install-probe-python.sh");
    }
}
