package dev.crucible.derive;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A tox or nox run that only type-checks or builds documentation: an environment named for a type checker or for the
 * docs ({@code tox -e mypy-test}, marshmallow's job 'mypy', which runs mypy over its test cases; its job 'docs':
 * {@code tox -e docs}; {@code nox -s typing}), or a tox.ini environment whose commands are all type checkers or docs
 * builders. The job choice passes over such a job while another one runs tests: it has a test runner's shape but no
 * test results, and tox's environment is what grading could not build (EROFS on .tox).
 */
final class CheckOnlyRuns {
    private static final Set<String> CHECKERS = Set.of("mypy", "pyright", "typing", "typecheck", "typechecks",
            "types", "pytype", "pyre", "stubtest", "basedpyright", "ty", "docs", "doc", "sphinx", "linkcheck", "mkdocs",
            "sphinx-build", "docs-build", "build-docs");

    private CheckOnlyRuns() {
    }

    /** {@code what}: a classified test run ({@code tox -e mypy-test}); {@code readFile}: the repository's files. */
    static boolean only(String what, Function<String, String> readFile) {
        if (what == null) return false;
        int e = what.indexOf(" -e ");
        if (!(what.startsWith("tox") || what.startsWith("nox")) || e < 0) return false;
        List<String> envs = List.of(what.substring(e + 4).strip().split(","));
        String ini = what.startsWith("tox") ? readFile.apply("tox.ini") : null;
        Map<String, Map<String, String>> sections = ini == null ? Map.of() : ToxFlattening.parse(ini);
        return envs.stream().allMatch(env -> named(env) || commandsCheckOnly(sections.get("testenv:" + env.strip())));
    }

    private static boolean named(String env) {
        for (String token : env.strip().toLowerCase(Locale.ROOT).split("[-_.:]")) {
            if (CHECKERS.contains(token)) return true;
        }
        return false;
    }

    private static boolean commandsCheckOnly(Map<String, String> section) {
        String commands = section == null ? null : section.get("commands");
        if (commands == null || commands.isBlank()) return false;
        for (String line : CommandClassifier.logicalLines(commands)) {
            String first = line.strip().replaceFirst("^-\\s*", "").replaceFirst("^python3? -m ", "").split("\\s+")[0];
            if (!CHECKERS.contains(first) || Set.of("types", "typing", "docs", "doc", "linkcheck").contains(first)) return false;
        }
        return true;
    }
}
