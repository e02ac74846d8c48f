package dev.crucible.cli.derive;

import dev.crucible.derive.Derivation;
import dev.crucible.derive.DerivedVerifier;
import dev.crucible.derive.FixCommit;
import java.util.ArrayList;
import java.util.List;

/**
 * The verifier of a fix task: failToPass and passToPass need a result per test. A verifier the CI
 * derivation already grades per test (pytest run directly, Maven/Gradle JUnit XML) is kept. A Python
 * job that tests through tox, nox, make, coverage or a script is graded with pytest run directly on the
 * same tests, after installing the package and pytest (CI installs them inside its own tool). Other
 * runners are kept as derived: the runs then tell whether they give per-test results.
 */
public final class FixVerifier {
    /**
     * @param extraSetup appended to the setup script, or null
     * @param note       what was changed from the CI's command and why, or null
     */
    record Command(String type, String framework, String command, String reportPath, String extraSetup, String note) {
    }

    /** Also appended by `crucible import swebench` (imports/SweBenchFolder) for the same reason. */
    public static final String PYTHON_SETUP = String.join("\n",
            "# Fix task: the verifier runs pytest directly (CI runs the tests through another tool),",
            "# so the package and pytest must be importable where pytest runs.",
            "python -m pip install -q pytest",
            "if [ -f pyproject.toml ] || [ -f setup.py ]; then python -m pip install -q -e . || python -m pip install -q .; fi");

    private FixVerifier() {
    }

    static Command of(Derivation d) {
        DerivedVerifier v = d.verifier();
        if ("test-suite".equals(v.type())) {
            return new Command(v.type(), v.framework(), v.command(), v.reportPath(), null, null);
        }
        if (!isPython(d)) {
            return new Command(v.type(), v.framework(), v.command(), v.reportPath(), null, null);
        }
        String command = "python -m pytest " + pytestArgs(v.command());
        return new Command("test-suite", "pytest", command.strip(), null, PYTHON_SETUP,
                "CI runs `" + firstLine(v.command()) + "`; per-test grading runs `" + command.strip() + "`");
    }

    private static boolean isPython(Derivation d) {
        String c = d.verifier().command();
        return d.toolchains().containsKey("python") || d.toolchains().containsKey("uv")
                || c.matches("(?s).*\\b(pytest|tox|nox|python[0-9.]*|coverage|uv|poetry|hatch|pdm)\\b.*");
    }

    /**
     * The arguments the CI gave pytest (after the word pytest on the first line that runs it), else the
     * test files it names ({@code coverage run test.py}), else nothing (pytest discovers the tests).
     */
    static String pytestArgs(String command) {
        for (String line : command.split("\n")) {
            String[] w = line.strip().split("\\s+");
            for (int i = 0; i < w.length; i++) {
                if (w[i].equals("pytest") || w[i].endsWith("/pytest") || w[i].equals("py.test")) {
                    List<String> args = new ArrayList<>();
                    for (int j = i + 1; j < w.length && !List.of("&&", "||", ";", "|").contains(w[j]); j++) {
                        if (!w[j].startsWith("--cov") && !w[j].contains("{") && !w[j].contains("$")) {
                            args.add(w[j]);
                        }
                    }
                    return String.join(" ", args);
                }
            }
        }
        List<String> files = new ArrayList<>();
        for (String word : command.split("\\s+")) {
            if (word.endsWith(".py") && FixCommit.isTestPath(word.replaceFirst("^\\./", ""))) {
                files.add(word);
            }
        }
        return String.join(" ", files);
    }

    private static String firstLine(String command) {
        return command.lines().filter(l -> !l.isBlank() && !l.startsWith("#") && !l.equals("set -e")).findFirst()
                .orElse(command);
    }
}
