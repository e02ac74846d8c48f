package dev.crucible.verifier.config;

import dev.crucible.contract.RewardMode;
import dev.crucible.contract.DetectorNames;
import dev.crucible.contract.PolicyAction;
import dev.crucible.contract.TestFrameworks;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Checks the verifier fields; every message names the source and the field path. */
public final class SpecValidator {
    static final Set<String> TYPES = Set.of("execution", "io", "assertion", "test-suite", "bidirectional", "composite");
    static final Set<String> FRAMEWORKS = frameworks();
    static final Set<String> ACTIONS = java.util.Arrays.stream(PolicyAction.values()).map(PolicyAction::wire)
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    private SpecValidator() {}

    private static Set<String> frameworks() {
        return java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(TestFrameworks.ALL));
    }

    public static void validate(EnvironmentSpec spec, String source) {
        List<String> errors = new ArrayList<>();
        if (spec.verifier() == null) {
            errors.add("spec.verifier: missing");
        } else {
            verifier(spec.verifier(), "spec.verifier", errors);
        }
        if (!ACTIONS.contains(spec.hackPolicy().action())) {
            errors.add("spec.hackPolicy.action: must be one of " + ACTIONS + ", got '" + spec.hackPolicy().action() + "'");
        }
        for (int i = 0; i < spec.hackPolicy().detectors().size(); i++) {
            String d = spec.hackPolicy().detectors().get(i);
            if (!DetectorNames.ALL.contains(d)) {
                errors.add("spec.hackPolicy.detectors[" + i + "]: unknown detector '" + d + "', known: "
                        + DetectorNames.ALL);
            }
        }
        if (spec.source() != null && !Set.of(EnvironmentSpec.Source.COMMIT, EnvironmentSpec.Source.ANCESTORS).contains(spec.source().historyOrDefault())) {
            errors.add("spec.source.history: must be commit (a fresh one-commit repository, the default) or ancestors, got '"
                    + spec.source().history() + "'");
        }
        hackPolicyOverrides(spec.hackPolicy(), errors);
        for (int i = 0; i < spec.tools().size(); i++) {
            if (!EnvironmentSpec.ALL_TOOLS.contains(spec.tools().get(i))) {
                errors.add("spec.tools[" + i + "]: unknown tool '" + spec.tools().get(i) + "', known: " + EnvironmentSpec.ALL_TOOLS);
            }
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(source + ": " + String.join("; ", errors));
        }
    }

    /** Keys of severity and ignore: a detector name, or detector/rule with a rule id as findings show it. */
    private static void hackPolicyOverrides(HackPolicy p, List<String> errors) {
        for (var e : new java.util.TreeMap<>(p.severity()).entrySet()) {
            String bad = overrideKey(e.getKey());
            if (bad != null) errors.add("spec.hackPolicy.severity." + e.getKey() + ": " + bad);
            if (!HackPolicy.SEVERITIES.contains(e.getValue())) {
                errors.add("spec.hackPolicy.severity." + e.getKey() + ": must be one of " + HackPolicy.SEVERITIES + ", got '" + e.getValue() + "'");
            }
        }
        for (int i = 0; i < p.ignore().size(); i++) {
            String bad = overrideKey(p.ignore().get(i));
            if (bad != null) errors.add("spec.hackPolicy.ignore[" + i + "]: " + bad);
        }
    }

    private static String overrideKey(String key) {
        String det = key.contains("/") ? key.substring(0, key.indexOf('/')) : key;
        if (!DetectorNames.ALL.contains(det)) {
            return "unknown detector '" + det + "', known: " + DetectorNames.ALL;
        }
        if (key.contains("/") && !key.substring(det.length() + 1).matches("[a-z0-9][a-z0-9-]*")) {
            return "rule must be a rule id like frame-walk, got '" + key.substring(det.length() + 1) + "'";
        }
        return null;
    }

    static void verifier(VerifierSpec v, String at, List<String> errors) {
        String type = v.typeOrDefault();
        if (!TYPES.contains(type)) {
            errors.add(at + ".type: must be one of " + TYPES + ", got '" + type + "'");
            return;
        }
        if (RewardMode.of(v.rewardModeOrDefault()) == null) {
            errors.add(at + ".rewardMode: must be one of " + RewardMode.wireNames() + ", got '" + v.rewardMode() + "'");
        }
        if (v.timeoutSeconds() != null && (v.timeoutSeconds() < 1 || v.timeoutSeconds() > 86_400)) {
            errors.add(at + ".timeoutSeconds: must be between 1 and 86400");
        }
        if (!VerifierSpec.ORACLE_MODES.contains(v.oracleOrDefault())) {
            errors.add(at + ".oracle: must be one of " + VerifierSpec.ORACLE_MODES + ", got '" + v.oracle() + "'");
        }
        if (v.inProcessVerdicts() != null && !dev.crucible.contract.OracleModes.IN_PROCESS_VERDICTS.contains(v.inProcessVerdicts())) {
            errors.add(at + ".inProcessVerdicts: must be one of " + dev.crucible.contract.OracleModes.IN_PROCESS_VERDICTS
                    + ", got '" + v.inProcessVerdicts() + "'");
        }
        if (v.framework() != null && !FRAMEWORKS.contains(v.framework())) {
            errors.add(at + ".framework: must be one of " + FRAMEWORKS + ", got '" + v.framework() + "'");
        }
        boolean needsCommand = !type.equals("composite") && !type.equals("bidirectional");
        if (needsCommand && (v.command() == null || v.command().isBlank())) {
            errors.add(at + ".command: required for type " + type);
        }
        if (type.equals("test-suite") && "junit-xml".equals(v.frameworkOrDefault()) && v.reportPath() == null) {
            errors.add(at + ".reportPath: required for framework " + v.framework());
        }
        for (int i = 0; i < v.excludedTests().size(); i++) {
            ExcludedTest e = v.excludedTests().get(i);
            if (e == null || e.id() == null || e.id().isBlank()) errors.add(at + ".excludedTests[" + i + "].id: required");
            else if (e.reason() == null || e.reason().isBlank()) errors.add(at + ".excludedTests[" + i + "].reason: required (why the test does not count)");
            else if (v.failToPass().contains(e.id())) errors.add(at + ".excludedTests[" + i + "].id: '" + e.id() + "' is a failToPass test, which always counts");
        }
        if (type.equals("io") && v.ioCases().isEmpty()) {
            errors.add(at + ".ioCases: at least one case is required for type io");
        }
        for (int i = 0; i < v.ioCases().size(); i++) {
            if (v.ioCases().get(i).expectedStdout() == null) {
                errors.add(at + ".ioCases[" + i + "].expectedStdout: required");
            }
        }
        if (type.equals("bidirectional")) {
            Bidirectional b = v.bidirectional();
            if (b == null) {
                errors.add(at + ".bidirectional: required for type bidirectional");
            } else {
                if (b.solutions().isEmpty()) errors.add(at + ".bidirectional.solutions: at least one path");
                if (b.tests().isEmpty()) errors.add(at + ".bidirectional.tests: at least one path");
                if (b.command() == null || !b.command().contains("{solution}") || !b.command().contains("{test}")) {
                    errors.add(at + ".bidirectional.command: a template containing {solution} and {test}");
                }
            }
        }
        if (type.equals("composite")) {
            if (v.components().isEmpty()) errors.add(at + ".components: at least one component for type composite");
            for (int i = 0; i < v.components().size(); i++) {
                Component c = v.components().get(i);
                String cat = at + ".components[" + i + "]";
                if (c.verifier() == null) {
                    errors.add(cat + ": missing its checks (type, command, ...)");
                } else {
                    verifier(c.verifier(), cat, errors); // the CRD's paths: a component's checks sit beside its name
                }
                if (c.weightOrDefault() < 0) errors.add(cat + ".weight: must be >= 0");
            }
        }
        for (int i = 0; i < v.protectedPaths().size(); i++) {
            String p = v.protectedPaths().get(i);
            if (p.startsWith("/") || p.contains("..")) {
                errors.add(at + ".protectedPaths[" + i + "]: must be a glob relative to the workspace, got '" + p + "'");
            }
        }
    }
}
