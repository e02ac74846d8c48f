package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.PolicyAction;
import dev.crucible.contract.SpecDefaults;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** How the live reward-hack monitor reacts, and the per-environment overrides of its defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HackPolicySpec {
    @JsonPropertyDescription("flag, terminate or revert (revert needs a snapshotPolicy on the Rollout). Findings of severity info are only recorded.")
    @Default(SpecDefaults.HACK_POLICY_ACTION)
    public PolicyAction action;

    @JsonPropertyDescription("Detectors to run; empty runs all.")
    @Size(max = 32)
    public List<HackDetector> detectors;

    @JsonPropertyDescription("false: stop protecting the built-in test configuration (pytest.ini, .pytest.ini and the test-runner sections of "
            + "pyproject.toml, setup.cfg, tox.ini); conftest.py, verifier.protectedPaths and the listed test files stay protected.")
    @Default("true")
    public Boolean protectedDefaults;

    @JsonPropertyDescription("Severity overrides, keyed by detector (network-egress) or detector/rule (frame-introspection/frame-walk, as "
            + "findings name their rule). info records a finding without counting it as a hack.")
    @Size(max = 64)
    public Map<String, HackSeverity> severity;

    @JsonPropertyDescription("Detectors or detector/rule pairs whose findings are dropped entirely.")
    @Size(max = 64)
    public List<@Size(min = 1, max = 128) @Pattern("^[a-z0-9-]+(/[a-z0-9-]+)?$") String> ignore;
}
