package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.shell.ShellWords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rewrites an environment's pytest command into the hardened grading invocation:
 * the interpreter resolved at reset runs isolated ({@code -I}: no PYTHON* variables, no user site,
 * no script directory on sys.path) without byte code ({@code -B}); pytest is imported before the
 * grading tree joins sys.path so a planted pytest.py, json.py or xml/ cannot stand in for them;
 * rootdir, confcutdir and the ini file are pinned so no conftest.py or pytest.ini above the tree counts.
 */
public final class PytestCommand {
    /**
     * The first argument on the input line when the isolated oracle grades this run: its configuration file,
     * in the oracle's folder of the support directory. The bootstrap loads the oracle's plugin (its import hook)
     * right after the reporter, before pytest reads any conftest or test module.
     */
    static final String ORACLE_ARG = "--crucible-oracle=";

    /**
     * Imports pytest and the modules grading needs, then waits for its arguments: one JSON line on stdin
     * that the grader writes once the grading tree is built (the process may have been started while
     * the agent still worked, see {@code GradingSandbox.prestart}; nothing of the tree exists before the
     * line comes). Then it imports the grader's reporter (from the support directory, argv[1]), puts the
     * grading tree where {@code python -m} would, and hands the reporter to pytest as a plugin object: it
     * is registered before any conftest or test module is imported. The reporter leaves sys.modules so
     * code under test cannot look it up by name. The interpreter ends through the reporter's
     * {@code finish} (exit callbacks and the tree's finalizers run, the rest is not torn down).
     */
    static final String BOOTSTRAP = String.join("; ",
            "import sys, os, json",
            "import pytest, _pytest.junitxml, _pytest.python, _pytest.skipping, xml.etree.ElementTree, unittest",
            "_go = sys.stdin.readline()",
            "_go or os._exit(2)",
            "sys.argv[2:] = json.loads(_go)",
            "_o = sys.argv.pop(2)[len('" + ORACLE_ARG + "'):] if sys.argv[2:3] and sys.argv[2].startswith('" + ORACLE_ARG + "') else None",
            "sys.path.insert(0, sys.argv.pop(1))",
            "import " + PytestReporter.MODULE + " as _crucible",
            "_p = [_crucible.plugin] + ([_crucible.oracle(_o)] if _o else [])",
            "del sys.path[0], _go",
            "sys.modules.pop('" + PytestReporter.MODULE + "', None)",
            "sys.path.insert(0, os.getcwd())",
            "_crucible.finish(pytest.main(sys.argv[1:], plugins=_p))");


    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private PytestCommand() {}

    /** The pytest arguments of {@code python3 -m pytest ARGS} or {@code pytest ARGS}; empty for other shapes. */
    public static Optional<List<String>> pytestArgs(String command) {
        List<String> t = ShellWords.split(command);
        if (t.isEmpty()) return Optional.empty();
        String first = Path.of(t.get(0)).getFileName().toString();
        if ((first.equals("pytest") || first.equals("py.test"))) return Optional.of(t.subList(1, t.size()));
        if (first.matches("python(\\d(\\.\\d+)?)?") && t.size() >= 3 && t.get(1).equals("-m") && t.get(2).equals("pytest")) {
            return Optional.of(t.subList(3, t.size()));
        }
        return Optional.empty();
    }

    /** The grading interpreter's command line: the same for every grading in one folder, so it can start early. */
    public static List<String> argv(String python, Path supportDir) {
        return List.of(python, "-I", "-B", "-c", BOOTSTRAP, supportDir.toString());
    }

    /**
     * The isolated oracle's cross-check run ({@code IsolatedTestSuite}): the same bootstrap in an interpreter started as a
     * user starts one, without {@code -I -B}, so that code under test cannot tell it from an ordinary run by its flags
     * (blind round 10, x23: correct only where {@code sys.flags.isolated} was set, as in the worker and the hardened
     * run). Its verdicts can only lower the grade, so what the missing isolation lets a tree do there gains it nothing.
     * The script's folder is not on sys.path for {@code -c} before the bootstrap runs, so no sitecustomize of the tree runs.
     */
    public static List<String> ordinaryArgv(String python, Path supportDir) {
        return List.of(python, "-c", BOOTSTRAP, supportDir.toString());
    }

    /** The line {@link #BOOTSTRAP} reads on stdin: pytest's arguments, the pinned options last. */
    public static String stdin(List<String> pytestArgs, Path root, Path junitXml, Path resultsDir) {
        List<String> args = new ArrayList<>(pytestArgs);
        args.addAll(pinnedOptions(root, junitXml, resultsDir));
        try {
            return JSON.writeValueAsString(args) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #stdin}'s line with the isolated oracle's configuration file in front (see {@link #ORACLE_ARG}). */
    public static String withOracle(String stdinLine, Path oracleConfig) {
        try {
            List<String> args = new ArrayList<>(List.of(JSON.readValue(stdinLine, String[].class)));
            args.add(0, ORACLE_ARG + oracleConfig.toAbsolutePath().normalize());
            return JSON.writeValueAsString(args) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether {@code argv} is the hardened pytest bootstrap of {@link #argv}. */
    public static boolean isBootstrap(List<String> argv) {
        return argv.size() == 6 && argv.get(1).equals("-I") && argv.get(3).equals("-c") && argv.get(4).equals(BOOTSTRAP);
    }

    /**
     * Options for any pytest run (also through PYTEST_ADDOPTS when the command has another shape).
     * {@code --continue-on-collection-errors}: a module that fails to import (an optional dependency
     * missing offline, a broken file at an old commit) would otherwise stop the session before any test
     * runs, hiding every other module's results; its own tests still count as not passed.
     */
    public static List<String> pinnedOptions(Path root, Path junitXml, Path resultsDir) {
        return List.of("--junitxml=" + junitXml, "-o", "junit_family=xunit1", "-p", "no:cacheprovider",
                "--continue-on-collection-errors",
                "--rootdir=" + root, "--confcutdir=" + root, "-c", iniFile(root, resultsDir).toString());
    }

    /**
     * Grading loads only the plugins installed at setup, one after another through PYTEST_PLUGINS (autoload off,
     * {@code ExecEnvironment}). pytest marks each for assertion rewriting just before importing it, where its own
     * autoload marks them all first; so a plugin that imports another (pytest-rerunfailures imports xdist) makes
     * pytest warn "Module already imported so cannot be rewritten; xdist.plugin", and a project whose
     * filterwarnings is "error" (scrapy) stops at start-up with no test run. CI never sees that warning: it is
     * ignored, for those plugin modules only ({@code -W} comes after the ini's filters, so it wins).
     */
    public static List<String> pluginLoadFilters(java.util.Map<String, String> env) {
        String plugins = env.get("PYTEST_PLUGINS");
        if (plugins == null || !"1".equals(env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"))) return List.of();
        List<String> out = new ArrayList<>();
        for (String m : plugins.split(",")) {
            String name = m.strip();
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*")) continue;
            out.add("-W");
            // a command-line filter's message is literal (pytest escapes it) and matched at the start
            out.add("ignore:Module already imported so cannot be rewritten; " + name + ":pytest.PytestAssertRewriteWarning");
        }
        return out;
    }

    /** The pristine config file at the root if there is one, else an empty one so no ancestor's is used. */
    static Path iniFile(Path root, Path resultsDir) {
        try {
            // pytest 9 reads pytest.toml first, before pytest.ini, even when empty (blind round 12, x24)
            for (String name : List.of("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini")) {
                if (Files.isRegularFile(root.resolve(name))) return root.resolve(name);
            }
            if (contains(root.resolve("pyproject.toml"), "[tool.pytest")) return root.resolve("pyproject.toml");
            if (contains(root.resolve("tox.ini"), "[pytest]")) return root.resolve("tox.ini");
            if (contains(root.resolve("setup.cfg"), "[tool:pytest]")) return root.resolve("setup.cfg");
            Path empty = resultsDir.resolve("empty-pytest.ini");
            Files.writeString(empty, "[pytest]\n");
            return empty;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean contains(Path f, String s) throws IOException {
        return Files.isRegularFile(f) && Files.readString(f).contains(s);
    }
}
