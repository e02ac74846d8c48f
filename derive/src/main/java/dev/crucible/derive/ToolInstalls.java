package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code pipx install poetry} (or uv, pdm, hatch, nox, tox) is how CI puts a Python project tool on the runner;
 * pipx is not on every machine, and the runtime installs these tools itself from the package index when they
 * are asked as toolchains (the sidecar's PythonTools). A setup step that only does that becomes the
 * toolchain request, its version kept ({@code poetry==1.8.3}).
 */
final class ToolInstalls {
    static final Set<String> TOOLS = Set.of("uv", "pdm", "poetry", "hatch", "nox", "tox");
    private static final Pattern PIPX = Pattern.compile("(?:python[0-9.]* -m )?pipx install((?: --?[A-Za-z-]+)*)((?: \\S+)+)");
    private static final Pattern PACKAGE = Pattern.compile("['\"]?([A-Za-z0-9_.-]+)(?:(==|@)([0-9][0-9A-Za-z.*]*))?['\"]?");

    private ToolInstalls() {
    }

    static void recognise(List<PlannedStep> steps) {
        for (PlannedStep p : steps) {
            if ((p.disposition != null && p.disposition != Disposition.SETUP) || p.script == null || p.step.uses() != null) {
                continue;
            }
            List<ActionMapping.Outcome> asked = new ArrayList<>();
            List<String> lines = CommandClassifier.logicalLines(p.script);
            for (String line : lines) {
                List<ActionMapping.Outcome> tools = tools(line.strip().replaceAll("\\s+", " "));
                if (tools == null) {
                    asked.clear();
                    break;
                }
                asked.addAll(tools);
            }
            if (asked.isEmpty()) {
                continue;
            }
            p.action = asked.get(0);
            p.nestedToolchains.addAll(asked.subList(1, asked.size()));
            p.set(Disposition.TOOLCHAIN, String.join("; ", asked.stream().map(ActionMapping.Outcome::reason).toList())
                    + " (the runtime installs it from the package index; pipx is not needed)");
        }
    }

    /** The tools a {@code pipx install} line asks for; null when the line is anything else. */
    private static List<ActionMapping.Outcome> tools(String line) {
        Matcher m = PIPX.matcher(line);
        if (!m.matches()) {
            return null;
        }
        List<ActionMapping.Outcome> out = new ArrayList<>();
        for (String word : m.group(2).strip().split(" ")) {
            Matcher w = PACKAGE.matcher(word);
            if (!w.matches() || !TOOLS.contains(w.group(1).toLowerCase())) {
                return null;
            }
            String tool = w.group(1).toLowerCase();
            String version = w.group(3) == null ? "*" : w.group(3);
            out.add(new ActionMapping.Outcome(Disposition.TOOLCHAIN, "pipx install " + word + ": needs " + tool + " "
                    + version, tool, version, null, null));
        }
        return out;
    }
}
