package dev.crucible.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * When no workflow at the commit runs tests (frp's CI builds images, lints and releases), the ecosystem's
 * conventional test job for what the repository holds: {@code go test ./...} for a Go module with test files,
 * {@code cargo test} for a Cargo package, {@code npm test} for a package.json with a real test script, pytest for a
 * Python project with a tests folder. It is written as a one-job workflow and derived like any other, so
 * toolchains, setup and grading are the same; the derivation's notes say that CI runs no tests and which
 * convention was used. Nothing is chosen when the repository holds none of these.
 */
final class ConventionalTests {
    /** Stands for the workflow in spec.source (which must name a YAML file); no such file is in the repository. */
    static final String PATH = ".github/workflows/crucible-conventional-tests.yml";

    private ConventionalTests() {
    }

    /** The conventional workflow text for {@code repo} at {@code commit}, with a note naming it; empty when none fits. */
    static Optional<Choice> choose(Path repo, String commit, Function<String, String> readFile) {
        List<String> files = files(repo, commit);
        if (files.contains("go.mod") && files.stream().anyMatch(f -> f.endsWith("_test.go"))) {
            return Optional.of(new Choice("go test ./... (a Go module with _test.go files)", job(
                    "      - uses: actions/setup-go@v5\n        with:\n          go-version-file: go.mod\n",
                    "      - run: go test ./...\n")));
        }
        if (files.contains("Cargo.toml")) {
            return Optional.of(new Choice("cargo test (a Cargo package)", job(
                    "      - uses: dtolnay/rust-toolchain@stable\n", "      - run: cargo test\n")));
        }
        String pkg = files.contains("package.json") ? readFile.apply("package.json") : null;
        if (pkg != null && hasTestScript(pkg)) {
            String install = files.contains("package-lock.json") ? "npm ci" : "npm install";
            return Optional.of(new Choice("npm test (package.json's test script)", job(
                    "      - uses: actions/setup-node@v4\n      - run: " + install + "\n", "      - run: npm test\n")));
        }
        boolean python = files.contains("pyproject.toml") || files.contains("setup.py");
        boolean tests = files.stream().anyMatch(f -> f.matches("(tests?/)(.*/)?(test_[^/]*|[^/]*_test)\\.py"));
        if (python && tests) {
            return Optional.of(new Choice("python -m pytest (a Python project with a tests folder)", job(
                    "      - uses: actions/setup-python@v5\n        with:\n          python-version: '3.x'\n"
                            + "      - run: |\n" + PythonTestDependencies.installLines(readFile).indent(10),
                    "      - run: python -m pytest\n")));
        }
        return Optional.empty();
    }

    /** @param convention what was chosen, for the note; @param workflow the one-job workflow text */
    record Choice(String convention, String workflow) {
        String note() {
            return "no workflow at the commit runs tests that derive can read: derived the conventional test job "
                    + convention + " (not a file of the repository; CI does not run it)";
        }
    }

    private static String job(String setup, String test) {
        return "name: conventional tests\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                + "      - uses: actions/checkout@v4\n" + setup + test;
    }

    static boolean hasTestScript(String packageJson) {
        try {
            JsonNode t = new ObjectMapper().readTree(packageJson).path("scripts").path("test");
            return t.isTextual() && !t.asText().isBlank() && !t.asText().contains("no test specified");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The repository's file paths at {@code commit} (the index when null). */
    private static List<String> files(Path repo, String commit) {
        List<String> cmd = commit == null ? List.of("git", "-C", repo.toString(), "ls-files")
                : List.of("git", "-C", repo.toString(), "ls-tree", "-r", "--name-only", commit);
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) return List.of();
            return new ArrayList<>(text.lines().toList());
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
