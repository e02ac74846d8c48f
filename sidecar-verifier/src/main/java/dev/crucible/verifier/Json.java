package dev.crucible.verifier;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.crucible.contract.WellFormedText;

/** The one JSON mapper: the API, the CLI and tests print identical JSON. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {}

    public static String write(Object o, boolean pretty) {
        try {
            // the code under test writes test messages: a lone surrogate in one would fail writing result.json as UTF-8
            return WellFormedText.of(pretty ? MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(o) : MAPPER.writeValueAsString(o));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
