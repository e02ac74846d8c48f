package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.probe.export.ExportException;
import dev.crucible.probe.export.HfModelDir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What `probe export` reads from config.json before any Python runs, and its one-line refusals. */
class HfModelDirTest {

    private static Path model(Path dir, String config) throws Exception {
        Files.writeString(dir.resolve("config.json"), config);
        Files.writeString(dir.resolve("model.safetensors"), "");
        return dir;
    }

    @Test
    void bertIsAnEncoderWithLayersPlusEmbeddingsAndItsPositionLimit(@TempDir Path dir) throws Exception {
        HfModelDir m = HfModelDir.read(model(dir, """
                {"architectures": ["BertModel"], "model_type": "bert", "num_hidden_layers": 6,
                 "hidden_size": 384, "max_position_embeddings": 512}"""));
        assertThat(m.kind()).isEqualTo(HfModelDir.Kind.ENCODER);
        assertThat(m.numHiddenStates()).isEqualTo(7);
        assertThat(m.hiddenSize()).isEqualTo(384);
        assertThat(m.maxPositions()).isEqualTo(512);
    }

    @Test
    void gpt2AndLlamaAreDecodersUnderTheirOwnConfigNames(@TempDir Path dir) throws Exception {
        HfModelDir gpt2 = HfModelDir.read(model(dir, """
                {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_layer": 12, "n_embd": 768,
                 "n_positions": 1024}"""));
        assertThat(gpt2.kind()).isEqualTo(HfModelDir.Kind.DECODER);
        assertThat(gpt2.numHiddenStates()).isEqualTo(13);
        assertThat(gpt2.hiddenSize()).isEqualTo(768);
        HfModelDir llama = HfModelDir.read(model(dir, """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 3,
                 "hidden_size": 48, "max_position_embeddings": 1024}"""));
        assertThat(llama.kind()).isEqualTo(HfModelDir.Kind.DECODER);
        assertThat(llama.numHiddenStates()).isEqualTo(4);
    }

    @Test
    void refusalsAreOneLineNamingTheCause(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> HfModelDir.read(dir)).isInstanceOf(ExportException.class)
                .hasMessageContaining("has no config.json: not a Hugging Face model directory");
        assertThatThrownBy(() -> HfModelDir.read(model(dir, """
                {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "is_encoder_decoder": true,
                 "num_layers": 6, "d_model": 512}""")))
                .hasMessageStartingWith("unsupported architecture T5ForConditionalGeneration (model_type 't5')")
                .hasMessageContaining("causal decoders");
        assertThatThrownBy(() -> HfModelDir.read(model(dir, """
                {"architectures": ["ViTModel"], "model_type": "vit", "num_hidden_layers": 12, "hidden_size": 768}""")))
                .hasMessageStartingWith("unsupported architecture ViTModel");
        Files.delete(dir.resolve("model.safetensors"));
        assertThatThrownBy(() -> HfModelDir.read(dir.resolve("missing"))).hasMessageContaining("does not exist");
        Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["BertModel"], "model_type": "bert", "num_hidden_layers": 2, "hidden_size": 8}""");
        assertThatThrownBy(() -> HfModelDir.read(dir)).hasMessageContaining("no weights");
        Files.writeString(dir.resolve("config.json"), "{not json");
        assertThatThrownBy(() -> HfModelDir.read(dir)).hasMessageContaining("is not valid JSON")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
