package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.onnxruntime.OrtException;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An export that does not match its reference spec fails at load with one line naming output and fix. */
class ExportErrorsTest {

    @Test
    void moreHiddenStatesThanTheModelHasIsOneLineNamingTheMissingOutput(@TempDir Path dir) throws Exception {
        for (String f : new String[] {"model.onnx", "tokenizer.json"}) {
            Files.copy(TinyModel.dir().resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("reference.json"), Files.readString(TinyModel.dir().resolve("reference.json"))
                .replace("\"numHiddenStates\": 5", "\"numHiddenStates\": 7"));
        ReferenceSpec spec = ReferenceSpec.read(dir);
        assertThatThrownBy(() -> new ReferenceModel(spec, Device.CPU, 1).close())
                .isInstanceOf(OrtException.class)
                .hasMessageContaining("has no output 'hidden_state_5'")
                .hasMessageContaining("says 7 hidden states")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
