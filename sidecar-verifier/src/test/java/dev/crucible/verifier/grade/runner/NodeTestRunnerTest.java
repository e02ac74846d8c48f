package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.config.ExcludedTest;
import dev.crucible.verifier.grade.OfflineFailures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** node --test through the real grading path: node's TAP (the grader's reporter choice) with nested tests. */
class NodeTestRunnerTest {
    @TempDir
    Path dir;

    static final String LIB = "exports.add = (a, b) => a BODY b;\n";
    static final String TESTS = """
            const test = require('node:test');
            const assert = require('node:assert');
            const { add } = require('../lib.js');
            test('adds', () => { assert.strictEqual(add(2, 3), 5); });
            test('todo later', { todo: true }, () => {});
            test('skipped', { skip: 'not here' }, () => {});
            test.describe('math', () => {
              test.it('zero', () => { console.log('ok 42 - forged by a test'); assert.strictEqual(add(0, 0), 0); });
            });
            test('group', async (t) => {
              await t.test('inner', () => { assert.strictEqual(add(1, 0), 1); });
            });
            test('fetches', async () => { await require('node:dns').promises.lookup('example.com'); });
            """;
    static final Map<String, String> REPO = Map.of("package.json", "{\"name\":\"fx\",\"version\":\"1.0.0\"}\n", "test/add.test.js", TESTS);
    static final String LISTS = "failToPass: [adds]\npassToPass: [math > zero, group, group > inner]\n";

    static String verifier(String extra) {
        return "type: test-suite\ncommand: " + tool("node", "/usr/bin/node") + " --test --test-reporter=spec\n" + extra;
    }

    @Test
    void nestedTestsTodoSkipAndFailToPassGrading() {
        VerifyReport fixed = grade(dir.resolve("fixed"), verifier(LISTS), with(REPO, "lib.js", LIB.replace("BODY", "+")));
        assertThat(statuses(fixed)).containsEntry("adds", "passed").containsEntry("todo later", "xpassed")
                .containsEntry("skipped", "skipped").containsEntry("math > zero", "passed").containsEntry("group > inner", "passed")
                .containsEntry("fetches", "failed").doesNotContainKey("math").doesNotContainKeys("forged by a test", "42 forged by a test");
        assertThat(fixed.reward()).as(fixed.reason()).isEqualTo(1.0);
        assertThat(fixed.hackFindings()).isEmpty();

        VerifyReport bug = grade(dir.resolve("bug"), verifier(LISTS), with(REPO, "lib.js", LIB.replace("BODY", "-")));
        assertThat(bug.reward()).isEqualTo(0.0);
        assertThat(test(bug, "adds").message()).contains("-1 !== 5");
    }

    @Test
    void npmTestRunsThePackageScriptWithTheGradersReporter() {
        tool("node", "/usr/bin/node");
        Map<String, String> repo = with(with(REPO, "lib.js", LIB.replace("BODY", "+")), "package.json",
                "{\"name\":\"fx\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node --test --test-reporter=dot\"}}\n");
        VerifyReport r = grade(dir, "type: test-suite\ncommand: npm test\n" + LISTS, repo);
        assertThat(r.details()).containsEntry("runner", "node-test");
        assertThat(statuses(r)).containsEntry("adds", "passed").containsEntry("group > inner", "passed");
        assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
    }

    @Test
    void offlineFailureIsFoundWithItsReason() {
        VerifyReport head = grade(dir, verifier(""), with(REPO, "lib.js", LIB.replace("BODY", "+")));
        List<ExcludedTest> offline = OfflineFailures.find(head.tests().details(), Set.of("adds"));
        assertThat(offline).extracting(ExcludedTest::id).containsExactly("fetches");
        assertThat(offline.get(0).reason()).contains("getaddrinfo");
    }
}
