package dev.crucible.verifier.grade;

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
     * Imports the grader's reporter (from the support directory, argv[1]) and the grader's own modules
     * first, then puts the grading tree where {@code python -m} would, and hands the reporter to pytest
     * as a plugin object: it is registered before any conftest or test module is imported. The reporter
     * leaves sys.modules so code under test cannot look it up by name. The interpreter ends through the
     * reporter's {@code finish} (exit callbacks and the tree's finalizers run, the rest is not torn down).
     */
    static final String BOOTSTRAP = String.join("; ",
            "import sys, os",
            "sys.path.insert(0, sys.argv.pop(1))",
            "import " + PytestReporter.MODULE + " as _crucible",
            "del sys.path[0]",
            "sys.modules.pop('" + PytestReporter.MODULE + "', None)",
            "import pytest, _pytest.junitxml, _pytest.python, _pytest.skipping, xml.etree.ElementTree, json, unittest",
            "sys.path.insert(0, os.getcwd())",
            "_crucible.finish(pytest.main(sys.argv[1:], plugins=[_crucible.plugin]))");

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

    public static List<String> argv(String python, List<String> pytestArgs, Path root, Path junitXml, Path resultsDir, Path supportDir) {
        List<String> argv = new ArrayList<>(List.of(python, "-I", "-B", "-c", BOOTSTRAP, supportDir.toString()));
        argv.addAll(pytestArgs);
        argv.addAll(pinnedOptions(root, junitXml, resultsDir));
        return argv;
    }

    /** Options for any pytest run (also through PYTEST_ADDOPTS when the command has another shape). */
    public static List<String> pinnedOptions(Path root, Path junitXml, Path resultsDir) {
        return List.of("--junitxml=" + junitXml, "-o", "junit_family=xunit1", "-p", "no:cacheprovider",
                "--rootdir=" + root, "--confcutdir=" + root, "-c", iniFile(root, resultsDir).toString());
    }

    /** The pristine config file at the root if there is one, else an empty one so no ancestor's is used. */
    static Path iniFile(Path root, Path resultsDir) {
        try {
            for (String name : List.of("pytest.ini", ".pytest.ini")) {
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
