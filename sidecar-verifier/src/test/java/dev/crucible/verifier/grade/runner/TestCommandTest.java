package dev.crucible.verifier.grade.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Finding the runner in a verifier's last command and asking it for machine output. */
class TestCommandTest {
    static final Path OUT = Path.of("/g/results-1/runner-x");
    static final Path ROOT = Path.of("/g/grade-1");

    static String rewrite(String script) {
        TestRunner r = Runners.detect(script).orElseThrow(() -> new AssertionError("no runner for " + script));
        return r.plan(TestCommand.parse(script).orElseThrow(), OUT, ROOT).command();
    }

    @Test
    void wrappersAssignmentsAndEarlierLinesAreKept() {
        assertThat(rewrite("set -e\ncd pkg && GOFLAGS=-mod=mod go test -race ./...")).isEqualTo("set -e\ncd pkg && GOFLAGS=-mod=mod go test -json -count=1 -race ./...");
        assertThat(rewrite("cargo +nightly test --workspace")).isEqualTo("cargo +nightly test --no-fail-fast --workspace 2>&1");
        assertThat(rewrite("cargo nextest run --status-level=fail")).isEqualTo("cargo nextest run --status-level=skip --no-fail-fast 2>&1");
        assertThat(rewrite("npx jest --ci 'src/a b'")).isEqualTo("npx jest --ci 'src/a b' --json --outputFile=/g/results-1/runner-x/jest.json");
        assertThat(rewrite("pnpm exec vitest --reporter=dot")).startsWith("pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=");
        assertThat(rewrite("node --test --test-reporter spec test/")).isEqualTo("node --test --test-reporter=tap --test-reporter-destination=stdout test/");
        assertThat(rewrite("timeout 600 mocha -R spec test")).isEqualTo("timeout 600 mocha test --reporter json --reporter-option output=/g/results-1/runner-x/mocha.json");
        assertThat(rewrite("./mvnw -q test")).isEqualTo("./mvnw -B -Dsurefire.reportsDirectory=/g/results-1/runner-x/surefire-reports -q test");
    }

    @Test
    void whatIsNotARunnerStaysPytest() {
        assertThat(Runners.detect("python -m pytest -q")).isEmpty();
        assertThat(Runners.detect("uv run --group dev pytest")).isEmpty();
        assertThat(Runners.detect("go vet ./...")).isEmpty();
        assertThat(Runners.detect("go test ./... | tee log")).isEmpty();
        assertThat(Runners.detect("cargo build")).isEmpty();
        assertThat(Runners.detect("# go test")).isEmpty();
        assertThat(TestCommand.parse("uv run --group dev tox -e py").orElseThrow().program()).isEqualTo("tox");
    }
}
