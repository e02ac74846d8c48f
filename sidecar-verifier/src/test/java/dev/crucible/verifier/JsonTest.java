package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonTest {

    @Test
    void aTestMessageWithALoneSurrogateStillWritesAsUtf8(@TempDir Path dir) throws Exception {
        // the code under test makes a failing test's message: ValueError("lone \udc80 surrogate") once left no result.json
        String json = Json.write(Map.of("message", "lone \udc80 surrogate", "emoji", "\ud83d\ude00"), true);
        Path f = dir.resolve("result.json");
        Files.writeString(f, json); // strict UTF-8: throws on a lone surrogate
        assertThat(Files.readString(f, StandardCharsets.UTF_8)).contains("lone \uFFFD surrogate").contains("\ud83d\ude00");
    }
}
