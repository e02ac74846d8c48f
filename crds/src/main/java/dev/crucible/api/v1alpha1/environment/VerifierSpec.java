package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.RewardMode;
import dev.crucible.contract.SpecDefaults;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** The environment's verifier: how the reward is computed, and which files grading trusts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.type != 'composite' || (has(self.components) && size(self.components) > 0)",
        message = "a composite verifier needs at least one component", fieldPath = ".components")
@ValidationRule(value = "!has(self.components) || self.type == 'composite'",
        message = "components apply only to composite verifiers", fieldPath = ".components")
@ValidationRule(value = "!has(self.rewardMode) || self.rewardMode != 'weighted' || self.type == 'composite'",
        message = "rewardMode weighted needs a composite verifier", fieldPath = ".rewardMode")
@ValidationRule(value = "!has(self.components) || self.components.all(c, self.components.exists_one(d, d.name == c.name))",
        message = "component names must be unique", fieldPath = ".components")
public class VerifierSpec extends CheckSpec {
    @JsonPropertyDescription("How results become a reward.")
    @Default(SpecDefaults.REWARD_MODE)
    public RewardMode rewardMode;

    @JsonPropertyDescription("Globs (relative to the workspace) the agent must not change: tests, conftest, grader files. Grading reads them from the pristine copy.")
    @Size(max = 256)
    public List<@Size(min = 1, max = 1024) String> protectedPaths;

    @JsonPropertyDescription("Tests applied only at grading.")
    public HiddenTestsSpec hiddenTests;

    @JsonPropertyDescription("Weighted parts of a composite verifier.")
    @Size(max = 16)
    public List<VerifierComponent> components;
}
