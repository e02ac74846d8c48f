package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** One stdin/stdout case of an io verifier. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IoCase {
    @Required
    @Size(min = 1, max = 256)
    public String name;
    @Size(max = 64)
    public List<String> args;
    @Size(max = 1048576)
    public String stdin;
    @Required
    @Size(max = 1048576)
    public String expectedStdout;
    @Min(1)
    @Max(3600)
    public Integer timeoutSeconds;
}
