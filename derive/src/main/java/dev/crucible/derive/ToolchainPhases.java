package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A job that sets up the same toolchain twice at different versions (setup-python 3.8, install, test, then
 * setup-python 3.14, install, test: gpt4free) is a version matrix written out by hand. On the runner each later
 * setup puts its version first on PATH, so every step after it runs under that version. The environment has one
 * version of each toolchain: the one its last test step runs under (the last setup of that language before it).
 * The earlier setups are left out, and so are the test steps that ran under them (the same tests again, under a
 * version the environment does not have). For Python the installs of an earlier phase go too: packages are
 * installed into one interpreter, and the next setup's interpreter does not see them (an install meant for 3.8
 * may not even resolve on 3.14). Files an earlier phase writes into the workspace (node_modules, a build) stay
 * for every other language.
 */
final class ToolchainPhases {
    /** A command that installs into the active Python interpreter. */
    private static final Pattern PYTHON_INSTALL = Pattern.compile(
            "(?m)(^|[;&|(\\s])(pip3?|python[0-9.]*\\s+-m\\s+pip|uv\\s+pip|poetry|pdm)\\s+(install|sync)\\b");

    private ToolchainPhases() {
    }

    /** Runs before the roles are assigned: the test steps are the undecided steps of kind TEST. */
    static void apply(List<PlannedStep> steps) {
        int lastTest = -1;
        for (int i = 0; i < steps.size(); i++) {
            PlannedStep p = steps.get(i);
            if (p.undecided() && p.kind == CommandKind.TEST) lastTest = i;
        }
        if (lastTest < 0) return;
        Map<String, List<Integer>> setups = new LinkedHashMap<>();
        for (int i = 0; i < lastTest; i++) {
            PlannedStep p = steps.get(i);
            if (p.disposition == Disposition.TOOLCHAIN && p.action != null && p.action.toolchain() != null) {
                setups.computeIfAbsent(p.action.toolchain(), k -> new ArrayList<>()).add(i);
            }
        }
        for (Map.Entry<String, List<Integer>> e : setups.entrySet()) {
            List<Integer> at = e.getValue();
            if (at.size() < 2) continue;
            PlannedStep kept = steps.get(at.get(at.size() - 1));
            String lang = e.getKey();
            String version = lang + " " + kept.action.version();
            for (int k = 0; k < at.size() - 1; k++) {
                PlannedStep earlier = steps.get(at.get(k));
                if (java.util.Objects.equals(earlier.action.version(), kept.action.version())) continue;
                String under = lang + " " + earlier.action.version();
                earlier.set(Disposition.DROPPED, "sets up " + under + "; the job sets up " + version + " at line " + kept.step.line()
                        + " before its last test step, which runs under that one (the environment has one " + lang + ")");
                for (int i = at.get(k) + 1; i < at.get(k + 1); i++) {
                    PlannedStep p = steps.get(i);
                    if (!p.undecided() || p.script == null) continue;
                    if (p.kind == CommandKind.TEST) {
                        p.set(Disposition.DROPPED, "runs the tests under " + under + "; the job runs them again under " + version
                                + " (line " + kept.step.line() + "), the version the environment has");
                    } else if (lang.equals("python") && PYTHON_INSTALL.matcher(p.script).find()) {
                        p.set(Disposition.DROPPED, "installs into " + under + ", which the setup of " + version + " at line "
                                + kept.step.line() + " replaces: its packages are not that interpreter's");
                    }
                }
            }
        }
    }
}
