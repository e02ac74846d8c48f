package dev.crucible.derive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * {@code uv run} syncs the project's environment before it runs the command, from the index: CI needs no install
 * step (pallets' click: setup-uv, then {@code uv run --locked --no-default-groups --group dev tox run}). Grading has
 * no network and runs uv with UV_OFFLINE/UV_NO_SYNC after setup (sidecar-verifier's {@code PythonTools}), so the sync
 * happens in setup: {@code uv sync} with the run's selection flags ({@code --locked}/{@code --frozen}, groups, extras,
 * {@code --no-dev}, the package), {@code --inexact} as {@code uv run} syncs, unless a kept step already syncs.
 */
final class UvSync {
    /** Selection flags of {@code uv run} that {@code uv sync} takes alike, with a value. */
    private static final Set<String> WITH_VALUE = Set.of("--group", "--only-group", "--no-group", "--extra", "--no-extra", "--package");
    /** ... and without one. */
    private static final Set<String> PLAIN = Set.of("--locked", "--frozen", "--no-dev", "--dev", "--only-dev", "--all-extras",
            "--no-default-groups", "--all-groups", "--all-packages", "--no-editable");
    /** {@code uv run} with these runs no project: nothing to sync. */
    private static final Set<String> NO_PROJECT = Set.of("--no-project", "--isolated", "--script", "--no-sync", "--with-requirements");
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=\\S*");
    private static final Pattern SYNCS = Pattern.compile("(^|[\\s;&|(])uv\\s+sync\\b");

    private UvSync() {
    }

    /**
     * Adds {@code uv sync FLAGS} to the first test step's setup that runs {@code uv run} in a project (a pyproject.toml
     * in its folder), unless some kept step already runs {@code uv sync}.
     */
    static void apply(List<PlannedStep> steps, List<PlannedStep> tests, Function<String, String> readFile, List<String> notes) {
        for (PlannedStep p : steps) {
            if (p.disposition == Disposition.DROPPED) continue;
            String text = (p.script == null ? "" : p.script) + "\n" + String.join("\n", p.setupLines);
            if (SYNCS.matcher(text).find()) return;
        }
        for (PlannedStep p : tests) {
            if (p.commandScript == null) continue;
            String dir = p.workingDirectory == null ? "" : p.workingDirectory.replaceAll("^\\./", "").replaceAll("/$", "") + "/";
            for (String line : CommandClassifier.logicalLines(p.commandScript)) {
                String sync = syncFor(line);
                if (sync == null) continue;
                String project = line.contains("--project") || line.contains("--directory") ? null : readFile.apply(dir + "pyproject.toml");
                if (project == null) {
                    p.notes.add("'uv run' syncs a project this derivation does not find (no pyproject.toml in its folder, or --project/--directory): not synced in setup");
                    return;
                }
                p.setupLines.add(0, sync);
                p.notes.add("'" + sync + "' in setup: 'uv run' syncs the project's environment from the index before it runs, which grading cannot (offline, no sync)");
                notes.add("the test command runs through 'uv run': setup runs '" + sync + "' while it has the network");
                return;
            }
        }
    }

    /** {@code uv sync …} for a {@code uv run} line (past {@code VAR=x} assignments), or null when it is none or runs no project. */
    static String syncFor(String line) {
        List<String> w = new ArrayList<>(Arrays.asList(line.strip().split("\\s+")));
        while (!w.isEmpty() && ASSIGNMENT.matcher(w.get(0)).matches()) w.remove(0);
        if (w.size() < 3 || !w.get(0).equals("uv") || !w.get(1).equals("run")) return null;
        List<String> flags = new ArrayList<>();
        for (int i = 2; i < w.size(); i++) {
            String o = w.get(i);
            if (!o.startsWith("-")) break; // the program: its own options are not uv's
            String name = o.contains("=") ? o.substring(0, o.indexOf('=')) : o;
            if (NO_PROJECT.contains(name)) return null;
            if (WITH_VALUE.contains(name)) {
                if (o.contains("=")) flags.add(o);
                else if (i + 1 < w.size()) flags.add(o + " " + w.get(++i));
            } else if (PLAIN.contains(o)) {
                flags.add(o);
            } else if (!o.contains("=") && RunnerPrefixes.takesValue(o)) {
                i++; // --python 3.12, --with x: not a selection of the project's environment
            }
        }
        return "uv sync --inexact" + (flags.isEmpty() ? "" : " " + String.join(" ", flags));
    }

    /** What tox-uv's {@code uv-venv-lock-runner} runs for an environment: its groups and extras from uv.lock. */
    static String lockRunnerSync(String groups, String extras, boolean noProject) {
        StringBuilder b = new StringBuilder("uv sync --locked --no-default-groups");
        for (String g : groups.split("[\\s,]+")) if (!g.isBlank()) b.append(" --group ").append(ShellScripts.quote(g.strip()));
        for (String e : extras.split("[\\s,]+")) if (!e.isBlank()) b.append(" --extra ").append(ShellScripts.quote(e.strip()));
        if (noProject) b.append(" --no-install-project");
        return b.toString();
    }

    /** {@code uv venv} with no folder of its own, its options only ({@code --python 3.13}, {@code --seed}). */
    private static final Pattern UV_VENV = Pattern.compile("uv\\s+venv((?:\\s+(?:--python|-p)\\s+[\\w.]+|\\s+--seed|\\s+--python=[\\w.]+)*)\\s*");

    /**
     * {@code uv venv} in setup (LLaMA-Factory: {@code uv venv}, then {@code uv pip install …}) makes the project's
     * environment where the runtime already made one (its venv, VIRTUAL_ENV and UV_PROJECT_ENVIRONMENT): uv refuses to
     * replace it (uv 0.13: exit 2, "A virtual environment already exists"). {@code --allow-existing} keeps its folder,
     * where the lines after it install; uv rewrites its pyvenv.cfg without the machine's site packages, as a fresh CI venv.
     */
    static void keepEnvironmentVenv(List<PlannedStep> steps, List<String> notes) {
        for (PlannedStep p : steps) {
            if (p.disposition != Disposition.SETUP || p.script == null || p.shellTemplate != null) continue;
            StringBuilder out = new StringBuilder();
            boolean changed = false;
            for (String line : p.script.split("\n", -1)) {
                java.util.regex.Matcher m = UV_VENV.matcher(line.strip());
                if (m.matches()) {
                    line = line.replaceFirst("\\s*$", "") + " --allow-existing";
                    changed = true;
                }
                out.append(line).append('\n');
            }
            if (changed) {
                p.script = out.substring(0, out.length() - 1);
                p.notes.add("'uv venv' gets --allow-existing: the runtime already made the environment's venv, which uv would refuse to replace");
                notes.add("setup's 'uv venv' keeps the environment's venv (--allow-existing)");
            }
        }
    }
}
