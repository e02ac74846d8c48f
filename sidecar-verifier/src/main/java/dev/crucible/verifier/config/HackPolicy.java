package dev.crucible.verifier.config;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * What happens on a finding: flag (mark the run hacked), terminate (end the
 * episode) or revert. Per environment: {@code detectors} runs only those (empty: all);
 * {@code ignore} drops findings of a detector ({@code network-egress}) or of one rule of it
 * ({@code frame-introspection/frame-walk}); {@code severity} overrides the severity the same way
 * (severity {@code info} records without counting as a hack); {@code protectedDefaults: false} stops
 * protecting the built-in test configuration (conftest.py, pytest.ini, the test-runner sections of
 * pyproject.toml / setup.cfg / tox.ini), leaving only the verifier's protectedPaths and test files.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HackPolicy(String action, List<String> detectors, Boolean protectedDefaults, Map<String, String> severity, List<String> ignore) {
    public static final HackPolicy DEFAULT = new HackPolicy(SpecDefaults.HACK_POLICY_ACTION, List.of());
    public static final List<String> SEVERITIES = List.of("info", "low", "medium", "high", "critical");

    public HackPolicy {
        action = action == null ? SpecDefaults.HACK_POLICY_ACTION : action;
        detectors = detectors == null ? List.of() : List.copyOf(detectors);
        severity = severity == null ? Map.of() : Map.copyOf(severity);
        ignore = ignore == null ? List.of() : List.copyOf(ignore);
    }

    public HackPolicy(String action, List<String> detectors) { this(action, detectors, null, null, null); }

    public boolean enabled(String detector) { return detectors.isEmpty() || detectors.contains(detector); }

    /** Whether {@code ignore} names the detector or this rule of it. */
    public boolean ignored(String detector, String rule) {
        return ignore.contains(detector) || (rule != null && ignore.contains(detector + "/" + rule));
    }

    /** The severity after overrides: the rule's entry, else the detector's, else {@code dflt}. */
    public String severityOf(String detector, String rule, String dflt) {
        String s = rule == null ? null : severity.get(detector + "/" + rule);
        if (s == null) s = severity.get(detector);
        return s == null ? dflt : s;
    }

    public boolean protectsDefaults() { return protectedDefaults == null || protectedDefaults; }
}
