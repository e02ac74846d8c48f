package dev.crucible.derive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Recognises what a shell command runs: test runners of the common ecosystems, linters, installers and
 * CI-only publishing. It looks at the program being run, after wrappers such as {@code sudo},
 * {@code VAR=x}, {@code poetry run}, {@code uv run} or {@code python -m}, so {@code pip install tox}
 * is an install and {@code tox -e py} a test run.
 */
final class CommandClassifier {
    /** A command and what it was recognised as; {@code what} names the tool for the report. */
    record Classified(CommandKind kind, String what) {
    }

    private static final Set<String> TEST_PROGRAMS = Set.of("pytest", "py.test", "tox", "nox", "unittest",
            "jest", "vitest", "mocha", "ava", "karma", "rspec", "phpunit", "ctest", "nosetests", "trial",
            "behave", "stestr", "green", "ward", "playwright", "cypress");
    private static final Set<String> LINT_PROGRAMS = Set.of("flake8", "ruff", "pylint", "mypy", "pyright",
            "pyflakes", "pycodestyle", "pydocstyle", "bandit", "codespell", "yamllint", "shellcheck",
            "hadolint", "eslint", "stylelint", "markdownlint", "markdownlint-cli2", "golangci-lint",
            "staticcheck", "gofmt", "goimports", "revive", "rubocop", "ktlint", "clang-format", "cpplint",
            "black", "isort", "prettier", "biome", "tsc", "vulture", "interrogate", "pre-commit", "actionlint",
            "commitlint", "check-manifest", "twine-check", "pyupgrade", "autoflake", "xo", "standard",
            "clang-tidy", "buf", "taplo", "typos");
    private static final Pattern ENV_ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=\\S*");
    /** Repository scripts named for running tests: ./test.sh, scripts/run-tests.sh, ci/test-complete. */
    private static final Pattern TEST_SCRIPT = Pattern.compile(
            "(?i)(.*/)?(run[-_]?)?(unit[-_]?)?tests?([-_]\\w+)?(\\.sh|\\.py|\\.bash)?");
    /** Publishing, deploying, report uploads and a runner's own housekeeping: meaningful only on GitHub. */
    private static final Pattern CI_ONLY = Pattern.compile("(?i)(" + String.join("|",
            "codecov", "coveralls", "twine\\s+upload", "(npm|yarn|pnpm)\\s+publish", "docker\\s+(login|push)",
            "gh\\s+(release|pr|issue)", "git\\s+push", "cargo\\s+publish", "mvn\\S*\\s.*\\bdeploy\\b",
            "gradlew?\\s.*\\bpublish", "aws\\s+s3", "gsutil", "netlify\\s+deploy", "vercel\\b", "heroku\\b",
            "sentry-cli", "codeclimate", "sonar-scanner", "curl\\s.*codecov\\.io",
            // a self-hosted runner's housekeeping: the workspace's owner is the runner's business (ragflow)
            "^(sudo\\s+(-\\S+\\s+)*)?ch(own|grp)\\s.*(\\$\\{?GITHUB_WORKSPACE|github\\.workspace)") + ")");

    private CommandClassifier() {
    }

    /** Splits a run script into logical lines: continuations joined, blank lines and comments gone. */
    static List<String> logicalLines(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : script.split("\n", -1)) {
            String line = raw.strip();
            if (current.length() == 0 && (line.isEmpty() || line.startsWith("#"))) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line.substring(0, line.length() - 1).strip()).append(' ');
                continue;
            }
            current.append(line);
            out.add(current.toString().strip());
            current.setLength(0);
        }
        if (current.length() > 0) {
            out.add(current.toString().strip());
        }
        return out;
    }

    /**
     * Whether a script uses shell control structures or heredocs, where moving single lines elsewhere
     * would change what it does.
     */
    static boolean isStructured(String script) {
        for (String line : logicalLines(script)) {
            String first = line.split("\\s+")[0];
            if (Set.of("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                    "function", "{", "}").contains(first) || line.contains("<<") || line.endsWith("{")
                    || line.matches("[A-Za-z_][A-Za-z0-9_]*\\s*\\(\\)\\s*\\{?.*")) {
                return true;
            }
        }
        return false;
    }

    /** The strongest kind among a line's commands: TEST over LINT over CI_ONLY over INSTALL over OTHER. */
    static Classified classifyLine(String line) {
        return classifyLine(line, MakeRecipes.NONE);
    }

    /** As {@link #classifyLine(String)}, reading make targets' recipes through {@code recipes}. */
    static Classified classifyLine(String line, MakeRecipes recipes) {
        Classified best = new Classified(CommandKind.OTHER, null);
        for (String command : line.split("&&|\\|\\||;|\\|")) {
            Classified c = classifyCommand(command.strip(), recipes);
            if (rank(c.kind()) > rank(best.kind())) {
                best = c;
            }
        }
        return best;
    }

    private static int rank(CommandKind k) {
        return switch (k) {
            case TEST -> 4;
            case LINT -> 3;
            case CI_ONLY -> 2;
            case INSTALL -> 1;
            case OTHER -> 0;
        };
    }

    /** Classifies one simple command (no {@code &&}, {@code ;} or pipes). */
    static Classified classifyCommand(String command) {
        return classifyCommand(command, MakeRecipes.NONE);
    }

    static Classified classifyCommand(String command, MakeRecipes recipes) {
        if (command.isEmpty()) {
            return new Classified(CommandKind.OTHER, null);
        }
        List<String> words = unwrap(new ArrayList<>(Arrays.asList(command.split("\\s+"))));
        // `pip install coveralls` installs; only running the uploader is CI-only.
        if (CI_ONLY.matcher(command).find() && (words.size() < 2
                || !isInstall(base(words.get(0)), words.get(1).toLowerCase(Locale.ROOT), words))) {
            return new Classified(CommandKind.CI_ONLY, command);
        }
        if (words.isEmpty()) {
            return new Classified(CommandKind.OTHER, null);
        }
        String program = words.get(0);
        String base = program.substring(program.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        String sub = words.size() > 1 ? words.get(1).toLowerCase(Locale.ROOT) : "";
        String third = words.size() > 2 ? words.get(2) : "";

        if (isInstall(base, sub, words)) {
            return new Classified(CommandKind.INSTALL, base + " " + sub);
        }
        if (program.equals(RunnerPrefixes.HATCH_SCRIPT)) {
            Classified asCommand = classifyCommand(String.join(" ", words.subList(1, words.size())), recipes);
            return asCommand.kind() == CommandKind.OTHER ? BuildToolCommands.hatchScript(words.get(1)) : asCommand;
        }
        if (base.matches("python[0-9.]*|pypy[0-9.]*") && words.size() > 1 && words.get(1).endsWith(".py")
                && TEST_SCRIPT.matcher(base(words.get(1))).matches()) {
            return test("python " + words.get(1));
        }
        switch (base) {
            case "poe" -> {
                return PoeTasks.classify(words, recipes);
            }
            case "tox", "nox" -> {
                return BuildToolCommands.toxLike(base, words);
            }
            case "npm", "yarn", "pnpm", "bun" -> {
                return BuildToolCommands.packageScript(base, words);
            }
            case "make", "just", "task", "rake", "invoke", "inv", "mage" -> {
                return BuildToolCommands.target(base, words, recipes);
            }
            case "go" -> {
                // syncthing: `go run build.go test`, a Go build script that runs go test (the grader's go shim sees it)
                List<String> args = words.stream().skip(2).filter(w -> !w.startsWith("-")).toList();
                if (sub.equals("run") && args.size() > 1 && args.get(1).equals("test")) return test("go run " + args.get(0) + " test");
                return sub.equals("test") ? test("go test")
                        : sub.equals("vet") || sub.equals("fmt") ? lint("go " + sub) : other();
            }
            case "cargo" -> {
                // cargo +nightly test, cargo hack test --feature-powerset, cargo llvm-cov [nextest]: still tests.
                List<String> rest = new ArrayList<>(words.subList(1, words.size()));
                rest.removeIf(x -> x.startsWith("+"));
                String verb = rest.isEmpty() ? "" : rest.get(0);
                if (Set.of("hack", "llvm-cov", "miri", "careful").contains(verb) && rest.size() > 1) {
                    String inner = rest.get(1);
                    if (inner.equals("test") || inner.equals("nextest") || verb.equals("llvm-cov") && inner.startsWith("-")) {
                        return test("cargo " + verb + " " + (inner.startsWith("-") ? "test" : inner));
                    }
                }
                if (!verb.equals(sub)) {
                    sub = verb;
                    third = rest.size() > 1 ? rest.get(1) : "";
                }
                if (sub.equals("test") || (sub.equals("nextest") && third.equals("run"))) {
                    return test("cargo " + sub);
                }
                return sub.equals("fmt") || sub.equals("clippy") || sub.equals("deny") || sub.equals("audit")
                        ? lint("cargo " + sub) : other();
            }
            case "mvn", "mvnw", "mvnw.cmd" -> {
                return BuildToolCommands.maven(words);
            }
            case "gradle", "gradlew" -> {
                return BuildToolCommands.gradle(words);
            }
            case "dotnet", "bazel", "bazelisk", "deno", "meson", "swift", "mix", "stack", "cabal", "sbt",
                    "hatch", "pants" -> {
                return sub.equals("test") ? test(base + " test")
                        : Set.of("lint", "fmt", "format").contains(sub) ? lint(base + " " + sub) : other();
            }
            case "coverage" -> {
                return coverage(words);
            }
            case "bundle", "php", "composer" -> {
                return other();
            }
            default -> {
            }
        }
        if ((base.equals("playwright") || base.equals("cypress")) && (sub.startsWith("install") || sub.equals("verify"))) {
            return other(); // the browser download that prepares browser tests, not a test run (BrowserInstalls)
        }
        if (TEST_PROGRAMS.contains(base)) {
            return test(base);
        }
        // gpt4free: `python -m etc.unittest`, a package's own module that runs unittest (or pytest) discovery
        if (base.matches("[\\w.]+\\.(unittest|pytest)") && TEST_PROGRAMS.contains(base.substring(base.lastIndexOf('.') + 1))) {
            return test("python -m " + base);
        }
        if (LINT_PROGRAMS.contains(base)) {
            if (base.equals("tsc") && !words.contains("--noEmit")) {
                return other();
            }
            return lint(base);
        }
        if ((program.contains("/") || base.endsWith(".sh")) && TEST_SCRIPT.matcher(base).matches()) {
            return test(program);
        }
        if (base.equals("bash") || base.equals("sh")) {
            if (words.size() > 1 && !words.get(1).startsWith("-") && TEST_SCRIPT.matcher(
                    words.get(1).substring(words.get(1).lastIndexOf('/') + 1)).matches()) {
                return test(words.get(1));
            }
        }
        return other();
    }

    /** Strips what only wraps the real program: sudo, time, env assignments, runners, python -m. */
    private static List<String> unwrap(List<String> w) {
        boolean changed = true;
        while (changed && !w.isEmpty()) {
            changed = false;
            String first = w.get(0);
            String lower = first.toLowerCase(Locale.ROOT);
            if (Set.of("sudo", "time", "exec", "command", "nohup", "xvfb-run", "npx", "pnpx", "bunx", "-E", "-a")
                    .contains(lower) || ENV_ASSIGNMENT.matcher(first).matches()) {
                w.remove(0);
                changed = true;
            } else if (lower.equals("env")) {
                w.remove(0);
                while (!w.isEmpty() && (ENV_ASSIGNMENT.matcher(w.get(0)).matches() || w.get(0).startsWith("-"))) {
                    boolean takesArg = Set.of("-u", "--unset", "-C", "--chdir", "-S").contains(w.get(0));
                    w.remove(0);
                    if (takesArg && !w.isEmpty()) {
                        w.remove(0);
                    }
                }
                changed = true;
            } else if (RunnerPrefixes.strip(w)) {
                changed = true;
            } else if (w.size() > 1 && lower.equals("yarn") && w.get(1).equals("run")) {
                w.remove(1);
                changed = true;
            } else if (w.size() > 1 && lower.equals("bundle") && w.get(1).equals("exec")) {
                w.remove(0);
                w.remove(0);
                changed = true;
            } else if (w.size() > 1 && lower.equals("conda") && w.get(1).equals("run")) {
                w.remove(0);
                w.remove(0);
                while (!w.isEmpty() && w.get(0).startsWith("-")) {
                    boolean takesArg = Set.of("-n", "--name", "-p", "--prefix").contains(w.get(0));
                    w.remove(0);
                    if (takesArg && !w.isEmpty()) {
                        w.remove(0);
                    }
                }
                changed = true;
            } else if (lower.matches("python[0-9.]*|py|pypy[0-9.]*")) {
                int m = w.indexOf("-m");
                if (m >= 1 && m + 1 < w.size() && interpreterOptionsOnly(w.subList(1, m))) {
                    w.subList(0, m + 1).clear();
                    changed = true;
                }
            }
        }
        return w;
    }

    /** Whether the words between python and -m are only interpreter options (-u, -X dev, -W error). */
    private static boolean interpreterOptionsOnly(List<String> words) {
        for (int i = 0; i < words.size(); i++) {
            String x = words.get(i);
            if (!x.startsWith("-")) {
                return false;
            }
            if (x.equals("-X") || x.equals("-W")) {
                i++;
            }
        }
        return true;
    }

    private static boolean isInstall(String base, String sub, List<String> w) {
        return switch (base) {
            case "pip", "pip3", "pipx", "conda", "mamba", "micromamba", "brew", "gem", "choco" ->
                    Set.of("install", "download", "sync", "create", "env").contains(sub);
            case "apt", "apt-get", "yum", "dnf", "apk" -> true;
            case "uv" -> Set.of("pip", "sync", "venv", "tool", "python").contains(sub);
            case "poetry", "pipenv", "pdm", "bundle", "composer", "rye" -> Set.of("install", "sync", "lock").contains(sub);
            case "npm" -> Set.of("ci", "install", "i").contains(sub);
            case "yarn" -> sub.isEmpty() || sub.equals("install") || sub.startsWith("--");
            case "pnpm", "bun" -> sub.equals("install") || sub.equals("i");
            case "go" -> sub.equals("mod") || sub.equals("get") || sub.equals("install");
            case "cargo" -> sub.equals("fetch") || sub.equals("install");
            case "rustup", "corepack", "virtualenv", "nvm", "pyenv", "sdk" -> true;
            default -> (base.equals("mvn") || base.equals("mvnw")) && w.stream().skip(1)
                    .filter(x -> !x.startsWith("-")).allMatch(x -> x.startsWith("dependency:"))
                    && w.stream().skip(1).anyMatch(x -> x.startsWith("dependency:"));
        };
    }

    private static Classified coverage(List<String> w) {
        if (w.size() > 1 && w.get(1).equals("run")) {
            List<String> rest = new ArrayList<>(w.subList(2, w.size()));
            int m = rest.indexOf("-m");
            if (m >= 0 && m + 1 < rest.size()) {
                String module = rest.get(m + 1);
                return TEST_PROGRAMS.contains(module) ? test("coverage run -m " + module) : other();
            }
            while (!rest.isEmpty() && rest.get(0).startsWith("-")) {
                rest.remove(0);
            }
            if (!rest.isEmpty() && rest.get(0).endsWith(".py") && TEST_SCRIPT.matcher(base(rest.get(0))).matches()) {
                return test("coverage run " + rest.get(0));
            }
            if (!rest.isEmpty()) {
                Classified c = classifyCommand(String.join(" ", rest), MakeRecipes.NONE);
                return c.kind() == CommandKind.TEST ? test("coverage run " + c.what()) : other();
            }
        }
        return other();
    }

    private static String base(String program) {
        return program.substring(program.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    }

    static Classified test(String what) {
        return new Classified(CommandKind.TEST, what);
    }

    static Classified lint(String what) {
        return new Classified(CommandKind.LINT, what);
    }

    static Classified other() {
        return new Classified(CommandKind.OTHER, null);
    }
}
