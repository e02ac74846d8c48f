package dev.crucible.derive;

import dev.crucible.derive.CommandClassifier.Classified;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How the build and task tools say "test" or "lint": tox and nox environments, npm/yarn/pnpm scripts,
 * make/just/rake targets, Maven goals and Gradle tasks. {@code mvn package} runs the tests too unless
 * they are skipped; {@code tox -e lint} only lints.
 */
final class BuildToolCommands {
    /** Package-manager script names that run tests or lint (npm run X, make X, just X ...). */
    private static final Pattern TEST_TARGET = Pattern.compile(
            "(?i)(test|tests|check|spec|unit|e2e|ci|coverage|cov)([:_-].*)?|.*[:_-](test|tests|spec)");
    private static final Pattern LINT_TARGET = Pattern.compile("(?i)(lint|format|fmt|style|typecheck|type-check"
            + "|typing|types|check-types|check-format|check-style|format-check|fmt-check|mypy|flake8|ruff|eslint"
            + "|prettier|black|isort|pylint|check-fmt|static|vet|clippy|audit)([:_-].*)?");
    private static final Set<String> LINT_TOX_ENVS = Set.of("lint", "linting", "flake8", "pylint", "mypy",
            "typing", "type", "types", "typecheck", "style", "format", "fmt", "pre-commit", "precommit", "ruff",
            "black", "isort", "pep8", "check", "checkqa", "qa", "codestyle", "pyright", "docstyle");
    private static final Set<String> MAVEN_TEST_GOALS = Set.of("test", "verify", "install", "package",
            "integration-test", "surefire:test", "failsafe:integration-test");
    private static final Set<String> MAVEN_OPTIONS_WITH_ARG = Set.of("-f", "--file", "-pl", "--projects", "-P",
            "--activate-profiles", "-s", "--settings", "-gs", "--global-settings", "-T", "--threads", "-rf",
            "--resume-from", "-t", "--toolchains", "-l", "--log-file", "-b", "--builder");
    private static final Set<String> GRADLE_OPTIONS_WITH_ARG = Set.of("-p", "--project-dir", "-x",
            "--exclude-task", "-c", "--settings-file", "-g", "--gradle-user-home", "--init-script", "-I");

    private BuildToolCommands() {
    }

    static Classified toxLike(String tool, List<String> w) {
        for (int i = 1; i < w.size(); i++) {
            String opt = w.get(i);
            String envs = null;
            if ((opt.equals("-e") || opt.equals("-s") || opt.equals("--session") || opt.equals("--sessions"))
                    && i + 1 < w.size()) {
                envs = w.get(i + 1);
            } else if (opt.startsWith("-e") && opt.length() > 2) {
                envs = opt.substring(2);
            }
            if (envs != null) {
                boolean allLint = Arrays.stream(envs.split(",")).map(e -> e.strip().toLowerCase(Locale.ROOT))
                        .allMatch(LINT_TOX_ENVS::contains);
                return allLint ? CommandClassifier.lint(tool + " -e " + envs) : CommandClassifier.test(tool + " -e " + envs);
            }
        }
        return CommandClassifier.test(tool);
    }

    /** What {@code hatch run ENV:SCRIPT} (or a bare script) runs, by the environment and script names. */
    static Classified hatchScript(String reference) {
        String what = "hatch run " + reference;
        String[] parts = reference.split(":", 2);
        String env = parts.length == 2 ? parts[0] : "";
        String script = parts.length == 2 ? parts[1] : parts[0];
        if (LINT_TARGET.matcher(script).matches() || LINT_TOX_ENVS.contains(env.toLowerCase(Locale.ROOT))
                || LINT_TARGET.matcher(env).matches()) {
            return CommandClassifier.lint(what);
        }
        if (TEST_TARGET.matcher(script).matches() || TEST_TARGET.matcher(env).matches() || script.equals("run")
                && env.isEmpty()) {
            return CommandClassifier.test(what);
        }
        return CommandClassifier.other();
    }

    /** npm test / npm run test:unit / yarn lint ... by the script name. */
    static Classified packageScript(String tool, List<String> w) {
        int i = 1;
        if (i < w.size() && (w.get(i).equals("run") || w.get(i).equals("run-script"))) {
            tool = tool + " " + w.get(i);
            i++;
        }
        while (i < w.size() && w.get(i).startsWith("-")) {
            i++;
        }
        if (i >= w.size()) {
            return CommandClassifier.other();
        }
        String script = w.get(i);
        if (script.equals("t") || TEST_TARGET.matcher(script).matches()) {
            return LINT_TARGET.matcher(script.replaceFirst("^(test|check)[:_-]", "")).matches()
                    && !script.equals("test") ? CommandClassifier.lint(tool + " " + script) : CommandClassifier.test(tool + " " + script);
        }
        if (LINT_TARGET.matcher(script).matches()) {
            return CommandClassifier.lint(tool + " " + script);
        }
        return CommandClassifier.other();
    }

    /**
     * make test / make lint / just check ... by the first target's name, else (make only) by what its
     * recipe in the Makefile runs: {@code make richtest} whose recipe runs pytest is a test run.
     */
    static Classified target(String tool, List<String> w, MakeRecipes recipes) {
        String dir = null;
        String file = null;
        for (int i = 1; i < w.size(); i++) {
            String t = w.get(i);
            if (t.startsWith("-")) {
                if (Set.of("-C", "-f", "--directory", "--file", "-j", "--makefile").contains(t) && i + 1 < w.size()) {
                    if (t.equals("-C") || t.equals("--directory")) {
                        dir = w.get(i + 1);
                    } else if (!t.equals("-j")) {
                        file = w.get(i + 1);
                    }
                    i++;
                } else if (t.startsWith("--directory=")) {
                    dir = t.substring(t.indexOf('=') + 1);
                } else if (t.startsWith("--file=") || t.startsWith("--makefile=")) {
                    file = t.substring(t.indexOf('=') + 1);
                }
                continue;
            }
            if (t.contains("=")) {
                continue;
            }
            if (LINT_TARGET.matcher(t).matches()) {
                return CommandClassifier.lint(tool + " " + t);
            }
            if (TEST_TARGET.matcher(t).matches() || t.equals("spec")) {
                return CommandClassifier.test(tool + " " + t);
            }
            Classified byRecipe = tool.equals("make") ? recipes.classify(dir, file, t) : null;
            return byRecipe != null ? byRecipe : CommandClassifier.other();
        }
        if (tool.equals("make")) {
            Classified all = recipes.classify(dir, file, "all");
            return all != null ? all : CommandClassifier.other();
        }
        return tool.equals("rake") ? CommandClassifier.test("rake") : CommandClassifier.other();
    }

    static Classified maven(List<String> w) {
        boolean skipTests = w.stream().anyMatch(x -> x.startsWith("-DskipTests") && !x.endsWith("=false")
                || x.equals("-Dmaven.test.skip=true") || x.equals("-Dmaven.test.skip"));
        List<String> goals = goals(w, MAVEN_OPTIONS_WITH_ARG);
        if (!skipTests && goals.stream().anyMatch(MAVEN_TEST_GOALS::contains)) {
            return CommandClassifier.test("mvn " + String.join(" ", goals));
        }
        if (!goals.isEmpty() && goals.stream().allMatch(g -> g.matches("(checkstyle|spotless|pmd|spotbugs|fmt"
                + "|formatter|license|enforcer|sortpom|rewrite|errorprone|modernizer|animal-sniffer|jacoco):.*|validate"))) {
            return CommandClassifier.lint("mvn " + String.join(" ", goals));
        }
        return CommandClassifier.other();
    }

    static Classified gradle(List<String> w) {
        List<String> tasks = goals(w, GRADLE_OPTIONS_WITH_ARG);
        boolean testsExcluded = false;
        for (int i = 1; i + 1 < w.size(); i++) {
            if ((w.get(i).equals("-x") || w.get(i).equals("--exclude-task")) && w.get(i + 1).endsWith("test")) {
                testsExcluded = true;
            }
        }
        for (String t : tasks) {
            String name = t.substring(t.lastIndexOf(':') + 1);
            if (!testsExcluded && (name.equals("test") || name.equals("check") || name.equals("build")
                    || name.endsWith("Test") || name.equals("connectedCheck") || name.equals("integrationTest"))) {
                return CommandClassifier.test("gradle " + String.join(" ", tasks));
            }
        }
        if (!tasks.isEmpty() && tasks.stream().map(t -> t.substring(t.lastIndexOf(':') + 1)).allMatch(t -> t.matches(
                "spotlessCheck|ktlintCheck|detekt|checkstyle\\w*|pmd\\w*|spotbugs\\w*|lint\\w*|apiCheck"))) {
            return CommandClassifier.lint("gradle " + String.join(" ", tasks));
        }
        return CommandClassifier.other();
    }

    private static List<String> goals(List<String> w, Set<String> optionsWithArg) {
        List<String> out = new ArrayList<>();
        for (int i = 1; i < w.size(); i++) {
            String x = w.get(i);
            if (optionsWithArg.contains(x)) {
                i++;
            } else if (!x.startsWith("-") && !x.startsWith("$") && !x.contains("=")) {
                out.add(x);
            }
        }
        return out;
    }
}
