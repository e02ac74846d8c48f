package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.git;
import static dev.crucible.cli.derive.BuiltRepos.onPath;
import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ant-design installs and tests with utoo ({@code utooland/setup-utoo}, then {@code ut}, {@code ut test:node}), which this
 * machine lacks: setup failed with "ut: command not found". Its lines run with npm; the baseline (two real no-op runs,
 * node's own test runner behind the npm script) then grades the suite per test.
 */
class UtooBaselineTest {
    @TempDir
    Path dir;

    @Test
    void utooLinesRunWithNpmAndTheSuiteIsGradedPerTest() throws Exception {
        assumeTrue(onPath("node") && onPath("npm"), "no node or npm on PATH");
        Path repo = dir.resolve("pad");
        write(repo, ".github/workflows/test.yml", """
                name: test
                on: [push]
                jobs:
                  test-node:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: utooland/setup-utoo@e7aa4d726a17f79f68aed736476ea5bd68f8ba52 # v1
                      - run: ut
                      - run: ut test:node
                """);
        write(repo, "package.json", "{\"name\": \"pad\", \"version\": \"1.0.0\", \"scripts\": {\"test:node\": \"node --test\"}}\n");
        write(repo, "pad.js", "exports.pad = (s, n) => String(s).padStart(n, '0');\n");
        write(repo, "test/pad.test.js", """
                const test = require('node:test');
                const assert = require('node:assert');
                const { pad } = require('../pad.js');
                test('pads', () => assert.strictEqual(pad(7, 3), '007'));
                test('keeps long', () => assert.strictEqual(pad(1234, 3), '1234'));
                test('drifted', () => assert.strictEqual(pad(1, 2), '1', 'expected what an old dependency gave'));
                """);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");

        Path manifest = dir.resolve("pad.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "test.yml", "--baseline",
                "-o", manifest.toString());
        // before: setup ran `ut`, "ut: command not found", and the environment was unusable
        assertThat(derive.exit()).as(derive.err()).isZero();
        assertThat(derive.err()).contains("3 tests, 2 pass both times (passToPass), 1 excluded");
        JsonNode spec = new YAMLMapper().readTree(manifest.toFile()).path("spec");
        assertThat(spec.path("setup").path("script").asText()).contains("npm install").doesNotContain("\nut");
        assertThat(spec.path("verifier").path("command").asText()).contains("npm run test:node");
    }
}
