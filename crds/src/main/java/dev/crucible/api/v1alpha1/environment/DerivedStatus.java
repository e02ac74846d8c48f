package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Setup and test commands derived from spec.source's workflow. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DerivedStatus {
    public String workflow;
    public String job;
    public Map<String, String> matrix;
    public String setupScript;
    public String testCommand;
    public Map<String, String> toolchains;
    public List<DerivedStep> steps;
}
