package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Makes setup's install of the project itself editable: {@code pip install . coverage} becomes {@code pip
 * install -e . coverage}. A plain install copies the package into the environment's site-packages at setup,
 * so the tests would import that copy, never the agent's edits (a src-layout project such as tomli: a fix
 * task's reference patch then passes nothing). An editable install points at the tree, and grading points it
 * at the grading tree (the sidecar's EditableInstalls).
 */
final class ProjectInstalls {
    private static final Set<String> PROJECT = Set.of(".", "./");

    private ProjectInstalls() {
    }

    static void makeEditable(List<PlannedStep> steps) {
        for (PlannedStep p : steps) {
            List<String> changed = new ArrayList<>();
            if (p.disposition == Disposition.SETUP && p.shellTemplate == null && p.script != null
                    && !CommandClassifier.isStructured(p.script)) {
                String rewritten = rewriteAll(CommandClassifier.logicalLines(p.script), changed);
                if (!changed.isEmpty()) {
                    p.script = rewritten; // untouched otherwise: its line continuations stay as written
                }
            } else if (p.disposition == Disposition.TEST || p.disposition == Disposition.LINT) {
                // install lines split off a test step go to setup too
                List<String> lines = List.of(rewriteAll(p.setupLines, changed).split("\n", -1));
                if (!changed.isEmpty()) {
                    p.setupLines.clear();
                    p.setupLines.addAll(lines);
                }
            }
            if (!changed.isEmpty()) {
                p.notes.add("the project is installed editable, so that tests import the tree the agent edits and grading "
                        + "runs, not a copy made at setup: " + String.join("; ", changed));
            }
        }
    }

    private static String rewriteAll(List<String> lines, List<String> changed) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String rewritten = rewrite(line);
            if (!rewritten.equals(line)) {
                changed.add("`" + line.strip() + "` → `" + rewritten + "`");
            }
            out.add(rewritten);
        }
        return String.join("\n", out);
    }

    /** The line with {@code -e} before the project's own path when it is a pip install of it; else the line. */
    static String rewrite(String line) {
        if (line.contains("&&") || line.contains("||") || line.contains(";") || line.contains("|")) {
            return line;
        }
        List<String> w = new ArrayList<>(List.of(line.strip().split("\\s+")));
        int install = pipInstall(w);
        if (install < 0 || w.contains("-e") || w.contains("--editable")) {
            return line;
        }
        for (int i = install + 1; i < w.size(); i++) {
            String bare = w.get(i).replaceAll("^[\"']|[\"']$", "");
            String path = bare.contains("[") ? bare.substring(0, bare.indexOf('[')) : bare;
            if (PROJECT.contains(path) && !w.get(i - 1).matches("-[rc]|--requirement|--constraint|--target|-t|--prefix|--root")) {
                w.add(i, "-e");
                return String.join(" ", w);
            }
        }
        return line;
    }

    /** The index of {@code install} in a pip install line (pip, pip3, python -m pip, uv pip), or -1. */
    private static int pipInstall(List<String> w) {
        int i = 0;
        if (w.size() > 2 && w.get(0).matches("python[0-9.]*") && w.get(1).equals("-m")) {
            i = 2;
        } else if (w.size() > 1 && w.get(0).equals("uv")) {
            i = 1;
        }
        if (i >= w.size() || !w.get(i).matches("pip[0-9.]*")) {
            return -1;
        }
        return i + 1 < w.size() && w.get(i + 1).equals("install") ? i + 1 : -1;
    }
}
