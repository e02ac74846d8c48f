package dev.crucible.probe.model;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The reference model's tokenizer.json through DJL's binding of the Rust `tokenizers` crate: the
 * same code PyTorch-side `transformers` uses, so ids match byte for byte, and its native library
 * ships inside the jar (nothing is downloaded at run time).
 */
public final class TextTokenizer implements AutoCloseable {
    private final HuggingFaceTokenizer tokenizer;
    private final int maxTokens;

    public TextTokenizer(Path tokenizerJson, int maxTokens) throws IOException {
        // no special tokens, no padding, no truncation: padding and truncation are done here
        this.tokenizer = HuggingFaceTokenizer.newInstance(tokenizerJson, Map.of(
                "addSpecialTokens", "false", "padding", "false", "truncation", "false",
                "modelMaxLength", "100000000"));
        this.maxTokens = maxTokens;
    }

    public int maxTokens() {
        return maxTokens;
    }

    /**
     * Token ids of one text, cut to the last maxTokens: the end of a task or turn (its conclusion,
     * and the token last_token pooling reads) is what must survive (ProbeModel's maxTokens contract).
     */
    public long[] encode(String text) {
        long[] ids = tokenizer.encode(text, false, false).getIds();
        return ids.length > maxTokens ? Arrays.copyOfRange(ids, ids.length - maxTokens, ids.length) : ids;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
