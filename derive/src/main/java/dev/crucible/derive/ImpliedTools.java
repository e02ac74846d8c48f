package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Python project tool (uv, poetry, pdm, hatch, nox, tox) that setup or the tests run with no step that puts it on the
 * runner: a self-hosted runner that has it (ragflow's {@code uv sync --frozen} with no setup-uv), or an image that
 * carries it. Here the line failed setup with "uv: command not found". It becomes a toolchain request, which the runtime
 * installs from the package index like one a setup action asks for; a tool that a kept line installs itself
 * ({@code pip install tox}) is left to that line.
 */
final class ImpliedTools {
    private static final Pattern SPLIT = Pattern.compile("\\n|&&|\\|\\||;|\\|");

    private ImpliedTools() {
    }

    /** Adds to {@code toolchains} each tool {@code setupScript} or {@code verifierCommand} runs unasked; the notes say which. */
    static void add(Map<String, String> toolchains, String setupScript, String verifierCommand, List<String> notes) {
        String all = ((setupScript == null ? "" : setupScript) + "\n" + (verifierCommand == null ? "" : verifierCommand))
                .replaceAll("(?m)^\\s*#.*$", ""); // comments (setup's step headers quote the step)
        List<String> added = new ArrayList<>();
        for (String part : SPLIT.split(all)) {
            String program = AbsentInstallers.program(part.strip().replaceFirst("^(exec|time|command)\\s+", ""));
            String tool = "uvx".equals(program) ? "uv" : program;
            if (tool == null || !ToolInstalls.TOOLS.contains(tool) || toolchains.containsKey(tool) || installedBy(all, tool)) continue;
            toolchains.put(tool, "");
            added.add(tool);
        }
        if (!added.isEmpty()) {
            notes.add("the job runs " + String.join(", ", added) + " with no step that sets " + (added.size() == 1 ? "it" : "them")
                    + " up (its runner has " + (added.size() == 1 ? "it" : "them") + "): asked as a toolchain, installed from the"
                    + " package index at its newest version");
        }
    }

    private static boolean installedBy(String script, String tool) {
        return Pattern.compile("(?m)(pip3?|pipx|python[0-9.]*\\s+-m\\s+pip|uv\\s+pip|uv\\s+tool|conda|apt-get|brew)\\s+install\\b[^\\n]*(\\s|['\"])"
                + Pattern.quote(tool) + "([\\s'\"=<>~!\\[]|$)").matcher(script).find();
    }
}
