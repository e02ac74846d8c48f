package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs {@code hatch test} as the pytest command it ends up running: the {@code hatch-test} environment's
 * dependencies (hatch's defaults, or the project's {@code dependencies}, plus {@code extra-dependencies}) and the
 * project (with its {@code features}, unless {@code skip-install}) install in setup; the test command is
 * {@code python -m pytest} with the arguments hatch would pass. Hatch builds that environment (and fetches its build
 * backend) when the tests run, which grading cannot do: no network, a read-only tree (microsoft/markitdown graded
 * "Failed to fetch … hatchling" as one execution). Anything this cannot read the way hatch would is kept as hatch.
 */
final class HatchTestFlattening {
    /** hatch's own {@code hatch-test} dependencies (hatch/env/internal/test.py), the coverage ones left out: coverage is stripped in grading. */
    static final List<String> DEFAULT_DEPENDENCIES = List.of("pytest~=8.1", "pytest-mock~=3.12", "pytest-randomly~=3.15",
            "pytest-rerunfailures~=14.0", "pytest-xdist[psutil]~=3.5");
    private static final java.util.regex.Pattern CD = java.util.regex.Pattern.compile("^cd\\s+([\\w./-]+)\\s*(?:;|&&)\\s*(.*)$");

    private HatchTestFlattening() {
    }

    static void flatten(List<PlannedStep> tests, Function<String, String> readFile, List<String> notes) {
        if (tests.size() != 1) {
            return;
        }
        PlannedStep p = tests.get(0);
        if (p.commandScript == null || p.shellTemplate != null) {
            return;
        }
        List<String> lines = CommandClassifier.logicalLines(p.commandScript);
        String dir = null;
        String line;
        if (lines.size() == 2 && lines.get(0).matches("cd\\s+[\\w./-]+")) { // markitdown: `cd packages/markitdown; hatch test`
            dir = lines.get(0).substring(2).strip();
            line = lines.get(1);
        } else if (lines.size() == 1) {
            line = lines.get(0);
            java.util.regex.Matcher m = CD.matcher(line);
            if (m.matches()) {
                dir = m.group(1);
                line = m.group(2);
            }
        } else {
            return;
        }
        List<String> words = List.of(line.strip().split("\\s+"));
        if (words.size() < 2 || !words.get(0).equals("hatch") || !words.get(1).equals("test") || line.matches(".*[\"'`$|<>&;(){}*?\\\\].*")) {
            return; // quoting, expansion or a pipeline: not read here, kept as hatch
        }
        String base = p.workingDirectory == null ? "" : p.workingDirectory.replaceAll("^\\./", "").replaceAll("/$", "");
        String folder = dir == null ? base : base.isEmpty() || dir.startsWith("/") ? dir : base + "/" + dir;
        String prefix = folder.isEmpty() || folder.equals(".") ? "" : folder.replaceAll("^\\./", "").replaceAll("/$", "") + "/";
        Map<String, Object> config = config(readFile, prefix);
        if (config == null) {
            return;
        }
        Options o = Options.parse(words.subList(2, words.size()));
        if (o == null) {
            return;
        }
        List<String> pytest = new ArrayList<>(List.of("python", "-m", "pytest"));
        pytest.addAll(strings(config.get("extra-args")));
        if (!bool(config.get("randomize"), o.randomize)) pytest.addAll(List.of("-p", "no:randomly"));
        if (bool(config.get("parallel"), o.parallel)) pytest.addAll(List.of("-n", "logical"));
        Object retries = config.getOrDefault("retries", o.retries);
        if (retries != null) {
            if (!o.args.contains("-r")) pytest.addAll(List.of("-r", "aR"));
            pytest.addAll(List.of("--reruns", String.valueOf(retries)));
        }
        Object delay = config.getOrDefault("retry-delay", o.retryDelay);
        if (delay != null) pytest.addAll(List.of("--reruns-delay", String.valueOf(delay)));
        pytest.addAll(o.args.isEmpty() ? (config.containsKey("default-args") ? strings(config.get("default-args")) : List.of("tests")) : o.args);

        List<String> install = new ArrayList<>();
        List<String> deps = new ArrayList<>(config.containsKey("dependencies") ? strings(config.get("dependencies")) : DEFAULT_DEPENDENCIES);
        deps.addAll(strings(config.get("extra-dependencies")));
        if (!deps.isEmpty()) {
            install.add("python -m pip install " + String.join(" ", deps.stream().map(ShellScripts::quote).toList()));
        }
        if (!bool(config.get("skip-install"), false)) {
            String features = String.join(",", strings(config.get("features")));
            String target = features.isEmpty() ? "." : ".[" + features + "]";
            install.add("python -m pip install " + (bool(config.get("dev-mode"), true) ? "-e " : "") + ShellScripts.quote(target));
        }
        if (config.get("env-vars") instanceof Map<?, ?> vars) {
            vars.forEach((k, v) -> p.env.put(String.valueOf(k), String.valueOf(v)));
        }
        if (dir != null) p.workingDirectory = folder; // setup and the test command both run there (ShellScripts.body)
        p.setupLines.addAll(install);
        p.commandScript = String.join(" ", pytest.stream().map(w -> w.matches("[\\w./:=,+@%-]+") ? w : ShellScripts.quote(w)).toList());
        p.recognised = CommandClassifier.classifyLine(p.commandScript).what();
        String why = "`hatch test` run without hatch: its hatch-test environment's dependencies and the project install in setup, "
                + "`" + p.commandScript + "` is the test command; hatch would build that environment at grading";
        p.notes.add(why + (o.ignored.isEmpty() ? "" : " (" + String.join(", ", o.ignored) + " left to the job's toolchain)"));
        notes.add("the test step's `hatch test` is flattened into setup + pytest");
    }

    /** Once flattened, a {@code pipx install hatch} only the test step needed is left out: nothing runs hatch any more. */
    static void dropUnusedHatch(List<PlannedStep> steps, List<PlannedStep> tests) {
        for (PlannedStep t : tests) {
            if (t.commandScript == null || t.commandScript.matches("(?s).*\\bhatch\\b.*")) return;
        }
        for (PlannedStep p : steps) {
            if (p.disposition != Disposition.DROPPED && p.disposition != Disposition.TOOLCHAIN && p.script != null
                    && !tests.contains(p) && p.script.matches("(?s).*\\bhatch\\b.*")) {
                return; // another step runs hatch (a build, a script)
            }
        }
        for (PlannedStep p : steps) {
            if (p.disposition == Disposition.TOOLCHAIN && p.action != null && "hatch".equals(p.action.toolchain()) && p.nestedToolchains.isEmpty()) {
                p.set(Disposition.DROPPED, "installs hatch, which no step runs once `hatch test` is flattened into setup + pytest");
            }
        }
    }

    /**
     * The {@code hatch-test} table: hatch.toml's {@code [envs.hatch-test]} over pyproject.toml's
     * {@code [tool.hatch.envs.hatch-test]} (hatch reads hatch.toml first); an empty map when neither sets it; null when
     * a value is one this reader cannot take or uses hatch's context formatting ({@code {root}}, {@code {env:…}}).
     */
    static Map<String, Object> config(Function<String, String> readFile, String prefix) {
        String hatchToml = readFile.apply(prefix + "hatch.toml");
        String pyproject = readFile.apply(prefix + "pyproject.toml");
        if (hatchToml == null && pyproject == null) return null; // no Python project where hatch would run
        Map<String, Map<String, String>> tables = PythonTestDependencies.tables(hatchToml != null ? hatchToml : pyproject);
        String root = hatchToml != null ? "envs.hatch-test" : "tool.hatch.envs.hatch-test";
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, String> e : tables.getOrDefault(root, Map.of()).entrySet()) {
            Object v = TomlValue.parse(e.getValue());
            if (v instanceof TomlValue.Unreadable || e.getValue().contains("{") && !(v instanceof Map)) return null;
            out.put(e.getKey(), v);
        }
        Map<String, String> vars = tables.get(root + ".env-vars");
        if (vars != null) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, String> e : vars.entrySet()) {
                Object v = TomlValue.parse(e.getValue());
                if (v instanceof TomlValue.Unreadable || String.valueOf(v).contains("{")) return null;
                m.put(e.getKey(), v);
            }
            out.put("env-vars", m);
        }
        return out;
    }

    private static List<String> strings(Object v) {
        if (v == null) return List.of();
        if (v instanceof List<?> l) return l.stream().map(String::valueOf).toList();
        return List.of(String.valueOf(v));
    }

    private static boolean bool(Object v, boolean dflt) {
        return v instanceof Boolean b ? b : dflt;
    }

    /** {@code hatch test}'s own options (hatch/cli/test); everything else is pytest's, as click hands it on. */
    record Options(boolean randomize, boolean parallel, String retries, String retryDelay, List<String> args, List<String> ignored) {
        static Options parse(List<String> words) {
            boolean randomize = false, parallel = false;
            String retries = null, delay = null;
            List<String> args = new ArrayList<>(), ignored = new ArrayList<>();
            for (int i = 0; i < words.size(); i++) {
                String w = words.get(i);
                switch (w) {
                    case "-r", "--randomize" -> randomize = true;
                    case "-p", "--parallel" -> parallel = true;
                    case "-c", "--cover", "--cover-quiet" -> ignored.add(w); // coverage: not part of grading
                    case "-a", "--all" -> ignored.add(w); // the matrix: the job's Python is the one cell graded
                    case "--retries", "--retry-delay", "-py", "--python", "-i", "--include", "-x", "--exclude" -> {
                        if (i + 1 >= words.size()) return null;
                        String v = words.get(++i);
                        if (w.equals("--retries")) retries = v;
                        else if (w.equals("--retry-delay")) delay = v;
                        else ignored.add(w + " " + v);
                    }
                    case "-s", "--show" -> {
                        return null; // shows the environments, runs no test
                    }
                    case "--" -> {
                        args.addAll(words.subList(i + 1, words.size()));
                        i = words.size();
                    }
                    default -> args.add(w);
                }
            }
            return new Options(randomize, parallel, retries, delay, args, ignored);
        }
    }
}
