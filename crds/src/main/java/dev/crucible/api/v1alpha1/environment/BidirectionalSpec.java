package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** CURE: every solution is run against every generated test, giving a pass/fail matrix. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BidirectionalSpec {
    @JsonPropertyDescription("Candidate solution files, relative to the workspace.")
    @Required
    @Size(min = 1, max = 256)
    public List<String> solutions;

    @JsonPropertyDescription("Unit-test files, relative to the workspace.")
    @Required
    @Size(min = 1, max = 256)
    public List<String> tests;

    @JsonPropertyDescription("Trusted tests that decide which solutions are correct (CURE's ground truth), relative to the workspace.")
    @Size(max = 256)
    public List<String> groundTruthTests;

    @JsonPropertyDescription("Command template run per pair; {solution} and {test} are replaced.")
    @Required
    @Size(min = 1, max = 4096)
    public String command;
}
