package dev.crucible.derive;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Commands whose output the tests rarely need: building documentation, building distributions (and
 * checking them), and compiling what {@code cargo test}/{@code go test} compile again anyway. Each is
 * recognised with the folder it writes, so {@link SetupPruning} can keep it when a later command reads
 * that folder.
 */
final class Byproducts {
    /** What a command makes: a kind for the report and the folder (relative) it writes. */
    record Made(String what, String output) {
    }

    private static final Pattern DIST = Pattern.compile("(?i)^(python[0-9.]* -m build|pyproject-build|pip[0-9]* wheel"
            + "|python[0-9.]* -m pip wheel|poetry build|uv build|hatch build|flit build|pdm build|rye build"
            + "|python[0-9.]* setup\\.py (sdist|bdist_wheel|bdist))(\\s.*)?$");
    private static final Pattern DIST_CHECK = Pattern.compile("(?i)^(twine check|check-wheel-contents"
            + "|python[0-9.]* -m twine check|pipx run twine check|uvx twine check)(\\s.*)?$");
    private static final Pattern DOCS = Pattern.compile("(?i)^(sphinx-build|python[0-9.]* -m sphinx|mkdocs build"
            + "|python[0-9.]* -m mkdocs build|pdoc|pdoc3|typedoc|jsdoc|doxygen|cargo doc|(cd docs?\\s*(&&|;)\\s*)?make (html|docs|doc)"
            + "|make -C docs?\\b.*|tox -e docs?|nox -s docs?|hatch run docs?:.*|npm run docs?|yarn docs?|pnpm docs?)(\\s.*)?$");
    /** Packages installed only to build docs or distributions. */
    private static final Pattern TOOL_PACKAGE = Pattern.compile("(?i)(build|twine|wheel|setuptools|setuptools[-_]scm"
            + "|sphinx.*|mkdocs.*|furo|myst.*|pdoc3?|check-manifest|check-wheel-contents|pip|docutils|readme[-_]renderer"
            + "|-r\\s*docs?/.*|docs?/.*|\\.\\[docs?\\]|\\.\\[doc\\])([<>=!~].*)?");

    private Byproducts() {
    }

    /** What the command line makes, or null when it is not a documentation/distribution/compile step. */
    static Made of(String line, String testCommand) {
        String l = line.strip().replaceAll("\\s+", " ");
        if (DOCS.matcher(l).matches()) {
            return new Made("builds documentation", l.startsWith("mkdocs") || l.contains("mkdocs") ? "site/"
                    : l.startsWith("cargo doc") ? "target/doc/" : "docs/_build/");
        }
        if (DIST.matcher(l).matches()) {
            return new Made("builds a distribution", "dist/");
        }
        if (DIST_CHECK.matcher(l).matches()) {
            return new Made("checks the built distribution", "dist/");
        }
        String test = testCommand == null ? "" : testCommand;
        if (l.matches("cargo (\\+\\S+ )?build(\\s.*)?") && test.contains("cargo test") && !l.contains("--release")) {
            return new Made("compiles what cargo test compiles again", "target/debug/");
        }
        if (l.matches("go build(\\s.*)?") && !l.contains(" -o") && test.contains("go test")) {
            return new Made("compiles what go test compiles again", null);
        }
        return null;
    }

    /** Whether an install line only installs documentation or packaging tools. */
    static boolean installsToolsOnly(String line) {
        List<String> w = Arrays.asList(line.strip().split("\\s+"));
        int at = w.indexOf("install");
        if (at < 0) {
            return false;
        }
        List<String> args = w.subList(at + 1, w.size()).stream().filter(x -> !x.startsWith("-") || x.equals("-r"))
                .toList();
        String joined = String.join(" ", args).replace("-r ", "-r");
        if (args.isEmpty()) {
            return false;
        }
        return Arrays.stream(joined.split(" ")).map(a -> a.toLowerCase(Locale.ROOT).replaceAll("^['\"]|['\"]$", ""))
                .allMatch(a -> TOOL_PACKAGE.matcher(a).matches());
    }
}
