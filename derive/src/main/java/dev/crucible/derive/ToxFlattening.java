package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs a tox test environment's commands directly instead of tox: its deps (and the package, unless
 * skip_install) are installed in setup, its commands become the test command. Tox builds virtualenvs and
 * installs into them when the tests run, which grading cannot do (read-only tree, no network). Only a
 * plain {@code tox.ini} with one test environment and simple values is flattened; anything else is kept.
 */
final class ToxFlattening {
    private ToxFlattening() {
    }

    static void flatten(List<PlannedStep> tests, Function<String, String> readFile, List<String> notes) {
        if (tests.size() != 1) {
            return;
        }
        PlannedStep p = tests.get(0);
        List<String> lines = p.commandScript == null ? List.of() : CommandClassifier.logicalLines(p.commandScript);
        if (lines.size() != 1 || p.recognised == null || !p.recognised.startsWith("tox") || p.shellTemplate != null) {
            return;
        }
        String prefix = p.workingDirectory == null ? "" : p.workingDirectory.replaceAll("^\\./", "").replaceAll("/$", "") + "/";
        String ini = readFile.apply(prefix + "tox.ini");
        // pallets' click, flask, itsdangerous: [tool.tox] in pyproject.toml (or a tox.toml), read into the same sections
        Map<String, Map<String, String>> sections = ini != null ? parse(ini) : ToxToml.sections(readFile, prefix);
        if (sections == null) {
            return;
        }
        // TOXENV from the step's env (scrapy: env: ${{ matrix.env }} with TOXENV: py) picks the env as -e would; tox 4
        // reads TOX_ENV too (click: TOX_ENV: ${{ matrix.tox || format('py{0}', matrix.python) }})
        String toxenv = p.env.containsKey("TOXENV") ? p.env.get("TOXENV") : p.env.get("TOX_ENV");
        String env = chosenEnv(p.recognised.equals("tox") && toxenv != null && toxenv.matches("[\\w.-]+(,[\\w.-]+)*")
                ? "tox -e " + toxenv : p.recognised, sections);
        Map<String, String> base = sections.getOrDefault("testenv", Map.of());
        Map<String, String> own = new LinkedHashMap<>(base);
        own.putAll(sections.getOrDefault("testenv:" + env, Map.of()));
        // {[section]key}: scrapy's deps = {[test-requirements]deps}; what is left unresolved still keeps tox
        own.replaceAll((k, v) -> references(v, sections));
        String commands = own.get("commands");
        if (commands == null || (commands + own.getOrDefault("deps", "")).contains("{[") || own.containsValue(ToxToml.UNRESOLVED)) {
            return;
        }
        List<String> run = new ArrayList<>();
        // black's tox commands: `pip install -e .[d]`, pytest, `pip install -e .[jupyter]`, pytest. Grading is offline
        // (pip fetched the build backend from the index there): the installs go to setup, after the env's own
        List<String> commandInstalls = new ArrayList<>();
        for (String c : CommandClassifier.logicalLines(commands)) {
            String s = substitute(c.replaceFirst("^-\\s*", ""));
            if (s.isBlank()) {
                continue;
            }
            (CommandClassifier.classifyLine(s).kind() == CommandKind.INSTALL ? commandInstalls : run).add(s);
        }
        if (run.stream().noneMatch(l -> CommandClassifier.classifyLine(l).kind() == CommandKind.TEST)) {
            return;
        }
        List<String> install = new ArrayList<>();
        boolean skipInstall = "true".equalsIgnoreCase(own.getOrDefault("skip_install", "false").strip())
                || "skip".equals(own.getOrDefault("package", "").strip());
        // tox-uv's lock runner syncs the env from uv.lock (its groups and extras; the project unless skipped): so does setup,
        // into the environment's venv, where uv installs the project editable and grading runs offline (no sync)
        if ("uv-venv-lock-runner".equals(own.getOrDefault("runner", "").strip())) {
            install.add(UvSync.lockRunnerSync(own.getOrDefault("dependency_groups", ""), own.getOrDefault("extras", ""), skipInstall));
            own.remove("dependency_groups");
            own.remove("extras");
            skipInstall = true;
        }
        List<String> deps = CommandClassifier.logicalLines(own.getOrDefault("deps", "")).stream()
                .map(d -> d.replaceAll("\\s+#.*$", "")) // "sybil >= 1.3.0  # https://…": an ini comment, not pip's
                .map(ToxFlattening::substitute).filter(d -> !d.isBlank()).toList();
        if (!deps.isEmpty()) {
            install.add("python -m pip install " + String.join(" ", deps.stream().flatMap(ToxFlattening::pipArguments).map(ShellScripts::quote).toList()));
        }
        // tox 4.22's dependency_groups (PEP 735; black: cov-tests): pip 25.1 installs them (ShellScripts raises pip first)
        for (String g : own.getOrDefault("dependency_groups", "").split("[\\s,]+")) {
            if (!g.isBlank() && !g.contains("{")) install.add("python -m pip install --group " + ShellScripts.quote(g.strip()));
        }
        if (!skipInstall) {
            String extras = own.getOrDefault("extras", "").strip().replaceAll("\\s+", ",");
            install.add("python -m pip install -e " + ShellScripts.quote(extras.isEmpty() ? "." : ".[" + extras + "]"));
        }
        install.addAll(commandInstalls);
        for (String e : CommandClassifier.logicalLines(own.getOrDefault("setenv", ""))) {
            int eq = e.indexOf('=');
            if (eq > 0 && !e.contains("{")) {
                p.env.put(e.substring(0, eq).strip(), e.substring(eq + 1).strip());
            }
        }
        p.setupLines.addAll(install); // the step's setup runs in its working folder already (ShellScripts.body)
        p.commandScript = String.join("\n", run);
        String first = run.get(0);
        p.recognised = CommandClassifier.classifyLine(first).what();
        p.notes.add("tox environment '" + env + "' run without tox: its deps install in setup, its commands ("
                + String.join("; ", run) + ") are the test command; tox would build a virtualenv at grading");
        notes.add("the test step's tox environment '" + env + "' is flattened into setup + its commands");
    }

    /**
     * One deps line as tox hands it to pip: a line of pip options ({@code -r requirements/tests.txt}, {@code -c c.txt},
     * {@code -e .}) is split like a shell line, a requirement ({@code sybil >= 1.3.0}) stays one argument. As one
     * argument, itsdangerous's {@code -r requirements/tests.txt} made pip look for a file named " requirements/tests.txt".
     */
    static java.util.stream.Stream<String> pipArguments(String dep) {
        return dep.startsWith("-") ? java.util.Arrays.stream(dep.strip().split("\\s+")) : java.util.stream.Stream.of(dep);
    }

    private static String chosenEnv(String recognised, Map<String, Map<String, String>> sections) {
        if (recognised.startsWith("tox -e ")) {
            String envs = recognised.substring("tox -e ".length()).strip();
            return envs.contains(",") ? envs.substring(0, envs.indexOf(',')) : envs;
        }
        String envlist = sections.getOrDefault("tox", Map.of()).getOrDefault("envlist", "py");
        for (String e : envlist.split("[,\\s]+")) {
            if (e.matches("py[0-9.]*|pypy[0-9.]*|test|tests|unit")) {
                return e;
            }
        }
        return "py";
    }

    /** Replaces {@code {[section]key}} with that section's value (nested ones too, a few levels); unknown ones stay. */
    static String references(String value, Map<String, Map<String, String>> sections) {
        java.util.regex.Pattern ref = java.util.regex.Pattern.compile("\\{\\[([^\\]]+)\\]([A-Za-z_][\\w-]*)\\}");
        String v = value;
        for (int depth = 0; depth < 4 && v.contains("{["); depth++) {
            java.util.regex.Matcher m = ref.matcher(v);
            StringBuilder b = new StringBuilder();
            boolean changed = false;
            while (m.find()) {
                String found = sections.getOrDefault(m.group(1).strip(), Map.of()).get(m.group(2));
                changed |= found != null;
                m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(found != null ? found : m.group()));
            }
            m.appendTail(b);
            v = b.toString();
            if (!changed) break;
        }
        return v;
    }

    /** Tox's substitutions for what a plain run needs; {posargs} goes, temp dirs go to $TMPDIR. */
    private static String substitute(String s) {
        // pytest's own temp dir is fine; a shell variable in its place would reach pytest unexpanded at grading.
        return s.replaceAll("--basetemp[= ]\\{envtmpdir\\}\\S*", "").replaceAll("\\{posargs(:[^}]*)?\\}", "").replace("{toxinidir}", ".").replace("{envpython}", "python")
                .replace("{envtmpdir}", "\"${TMPDIR:-/tmp}/tox-env\"").replace("{envdir}", "\"${TMPDIR:-/tmp}/tox-env\"")
                .replaceAll("\\s+", " ").strip();
    }

    /** Sections of an ini file: keys to values, continuation lines joined with newlines. */
    static Map<String, Map<String, String>> parse(String ini) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        Map<String, String> section = null;
        String key = null;
        for (String raw : ini.split("\n")) {
            String line = raw.replaceAll("\\s+$", "");
            if (line.strip().startsWith("#") || line.strip().startsWith(";")) {
                continue;
            }
            if (line.startsWith("[")) {
                section = out.computeIfAbsent(line.replaceAll("^\\[|\\].*$", "").strip(), k -> new LinkedHashMap<>());
                key = null;
            } else if (section != null && !line.isBlank() && Character.isWhitespace(line.charAt(0)) && key != null) {
                section.merge(key, line.strip(), (a, b) -> a.isEmpty() ? b : a + "\n" + b);
            } else if (section != null && line.contains("=")) {
                key = line.substring(0, line.indexOf('=')).strip();
                section.put(key, line.substring(line.indexOf('=') + 1).strip());
            }
        }
        return out;
    }
}
