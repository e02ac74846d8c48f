package dev.crucible.snapshot.client.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON form of manifests and of the agent's requests and answers: the agent writes files
 * and answers with it, the client reads with it, so the two ends cannot drift. Unknown properties
 * are ignored, so an older reader still reads a newer writer.
 */
public final class ManifestJson {

    public static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);

    private ManifestJson() {
    }
}
