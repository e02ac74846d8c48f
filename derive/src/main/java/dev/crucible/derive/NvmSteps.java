package dev.crucible.derive;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run step that installs Node through nvm ({@code nvm install --default 20}, as the jshttp and
 * expressjs workflows do instead of actions/setup-node) asks for a node toolchain: the environment's
 * node stands in for it, because nvm itself is a shell function the setup box does not have. The rest
 * of such a step only points PATH at nvm's node (or works around node 0.x), so it goes with it.
 */
final class NvmSteps {
    private static final Pattern NVM_INSTALL = Pattern.compile("nvm\\s+(?:install|use)((?:\\s+-\\S+)*)\\s+(['\"]?)([^\\s'\"-][^\\s'\"]*)\\2(\\s.*)?");

    private NvmSteps() {
    }

    /** True when the step was taken as a node toolchain request (its disposition and action set). */
    static boolean asToolchain(PlannedStep p) {
        List<String> lines = CommandClassifier.logicalLines(p.script);
        if (lines.isEmpty()) {
            return false;
        }
        Matcher m = NVM_INSTALL.matcher(lines.get(0));
        if (!m.matches() || lines.stream().anyMatch(l -> CommandClassifier.classifyLine(l).kind() == CommandKind.TEST)) {
            return false;
        }
        String version = m.group(3).replaceFirst("^v", "");
        if (version.equals("node") || version.equals("stable") || version.startsWith("lts")) {
            version = "*";
        }
        p.action = new ActionMapping.Outcome(Disposition.TOOLCHAIN, "installs node " + version + " with nvm: the "
                + "environment's node toolchain stands in for it"
                + (lines.size() > 1 ? " (the step's other " + (lines.size() - 1) + " line(s), nvm's PATH handling, go with it)" : ""),
                "node", version, null, null);
        p.set(Disposition.TOOLCHAIN, p.action.reason());
        return true;
    }
}
