package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** One stdin/stdout case: the verifier command runs with {@code args} appended and {@code stdin} fed. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record IoCase(String name, List<String> args, String stdin, String expectedStdout, Integer timeoutSeconds) {
    public IoCase {
        args = args == null ? List.of() : List.copyOf(args);
        stdin = stdin == null ? "" : stdin;
    }
}
