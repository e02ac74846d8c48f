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
 * toolchain request, its version kept ({@code poetry==1.8.3}). So does a tool's own installer script piped into an
 * interpreter ({@code curl -sSL https://install.python-poetry.org | python3 -}, open-interpreter; uv's install.sh):
 * its host is not reachable where the environment is set up, the package index is. Lines that only put the
 * installer's folder on PATH go with it.
 */
final class ToolInstalls {
    static final Set<String> TOOLS = Set.of("uv", "pdm", "poetry", "hatch", "nox", "tox");
    private static final Pattern PIPX = Pattern.compile("(?:python[0-9.]* -m )?pipx install((?: --?[A-Za-z-]+)*)((?: \\S+)+)");
    // curl/wget URL | [VAR=V ...] python3|sh|bash [-] [ARGS]
    private static final Pattern INSTALLER = Pattern.compile("(?:curl|wget)(?: -\\S+)* ['\"]?https?://([^\\s'\"]+)['\"]?(?: -\\S+)*"
            + " ?\\| ?((?:[A-Z_]+=\\S+ )*)(?:python[0-9.]*|sh|bash)(?: -)?((?: \\S+)*)");
    private static final Pattern ON_PATH = Pattern.compile("(?:echo ['\"]?[^'\"|>]*/bin['\"]? >> ['\"]?\\$\\{?GITHUB_PATH}?['\"]?"
            + "|export PATH=['\"]?[^'\";&|]*/bin:\\$\\{?PATH}?['\"]?)");
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
                    + " (the runtime installs it from the package index; neither pipx nor the installer's host is needed)");
        }
    }

    /** The tools a {@code pipx install} or installer line asks for (none for a PATH line); null when the line is anything else. */
    private static List<ActionMapping.Outcome> tools(String line) {
        if (ON_PATH.matcher(line).matches()) {
            return List.of();
        }
        Matcher i = INSTALLER.matcher(line);
        if (i.matches()) {
            ActionMapping.Outcome o = installer(i.group(1), i.group(2) + " " + i.group(3));
            return o == null ? null : List.of(o);
        }
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

    /** The tool a known installer script's URL installs, its version from the URL, an argument or a variable. */
    private static ActionMapping.Outcome installer(String url, String args) {
        String tool = url.startsWith("install.python-poetry.org") ? "poetry"
                : url.matches("astral\\.sh/uv(/[^/]+)?/install\\.sh") ? "uv"
                : url.endsWith("/install-pdm.py") ? "pdm" : null;
        if (tool == null) {
            return null;
        }
        Matcher v = Pattern.compile("(?:--version[ =]|" + tool.toUpperCase() + "_VERSION=)['\"]?([0-9][0-9A-Za-z.]*)").matcher(args);
        Matcher u = Pattern.compile("astral\\.sh/uv/([0-9][^/]*)/").matcher(url);
        String version = v.find() ? v.group(1) : u.find() ? u.group(1) : "*";
        return new ActionMapping.Outcome(Disposition.TOOLCHAIN, "the installer script from " + url + ": needs " + tool + " "
                + version, tool, version, null, null);
    }
}
