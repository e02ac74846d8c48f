package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.export.ExportParity;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check `probe export` ends with, on the committed tiny model and its PyTorch figures (no torch
 * needed): it passes as exported, and it fails on a changed activation or changed token ids.
 */
class ExportParityTest {

    private static Path copyOfTinyModel(Path dir) throws Exception {
        for (String f : new String[] {"model.onnx", "tokenizer.json", "reference.json", "parity.json"}) {
            Files.copy(TinyModel.dir().resolve(f), dir.resolve(f));
        }
        return dir;
    }

    @Test
    void theTinyModelMatchesItsPyTorchFiguresOneByOneAndBatched() throws Exception {
        ExportParity.Result r = ExportParity.check(TinyModel.dir(), 1);
        assertThat(r.texts()).isEqualTo(6);
        assertThat(r.hiddenStates()).isEqualTo(5);
        assertThat(r.poolings()).isEqualTo(7);
        assertThat(r.maxOneByOne()).isLessThan(1e-4);
        assertThat(r.maxBatched()).isLessThan(1e-4);
        assertThat(r.passes(1e-4)).isTrue();
        assertThat(r.line(1e-4)).contains("token ids identical");
    }

    @Test
    void aChangedActivationOrChangedIdsFail(@TempDir Path dir) throws Exception {
        copyOfTinyModel(dir);
        Path parity = dir.resolve("parity.json");
        String original = Files.readString(parity);
        // the first value of the first pooled vector, moved by 0.5
        int at = original.indexOf("\"last_token\":[") + "\"last_token\":[".length();
        int end = original.indexOf(',', at);
        double v = Double.parseDouble(original.substring(at, end));
        Files.writeString(parity, original.substring(0, at) + (v + 0.5) + original.substring(end));
        ExportParity.Result moved = ExportParity.check(dir, 1);
        assertThat(moved.maxDiff()).isBetween(0.49, 0.51);
        assertThat(moved.passes(1e-3)).isFalse();

        // PyTorch's ids for the first text no longer what the served tokenizer gives
        Files.writeString(parity, original.replaceFirst("\"ids\":\\[(\\d+)", "\"ids\":[7"));
        ExportParity.Result ids = ExportParity.check(dir, 1);
        assertThat(ids.tokenMismatches()).hasSize(1);
        assertThat(ids.passes(1.0)).isFalse();
        assertThat(ids.line(1e-3)).contains("token ids DIFFER for ['def add(a, b):");
    }
}
