package dev.crucible.cli.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.util.Map;

/**
 * Reads a task manifest (Harbor's task.toml) with Jackson's TOML parser into plain maps, lists, numbers and strings.
 * What it cannot read is an error naming the file, the line and the parser's reason: the importer never guesses at a value.
 */
final class TomlReader {
    private static final TomlMapper TOML = new TomlMapper();

    private TomlReader() {}

    /** A TOML error at {@code line} (1-based) of {@code file}. */
    static final class TomlException extends Exception {
        TomlException(String file, int line, String reason) {
            super(file + ":" + line + ": " + reason);
        }
    }

    static Map<String, Object> parse(String file, String text) throws TomlException {
        try {
            Map<String, Object> doc = TOML.readValue(text, new TypeReference<Map<String, Object>>() {});
            return doc == null ? Map.of() : doc;
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new TomlException(file, Math.max(line, 1), e.getOriginalMessage());
        }
    }
}
