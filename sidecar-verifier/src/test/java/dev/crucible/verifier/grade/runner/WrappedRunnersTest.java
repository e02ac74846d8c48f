package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.grade.result.TestCase;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test commands that reach their runner through a wrapper (make, a shell script, an npm script): the grader
 * instruments the runner through the environment, without rewriting the wrapper, and grades per test.
 * Real make, pytest, go, node and cargo on repositories made here, in the test tier's grading sandbox.
 */
class WrappedRunnersTest {
    @TempDir
    Path dir;

    private static String verifier(String command, String extra) {
        return "type: test-suite\ncommand: " + command + "\ntimeoutSeconds: 600\n" + extra;
    }

    @Test
    void makeRunningPytestIsGradedPerTest() {
        tool("make", "/usr/bin/make");
        Map<String, String> repo = Map.of(
                "Makefile", ".PHONY: test\ntest:\n\tpython3 -m pytest -q tests\n",
                "calc.py", "def add(a, b):\n    return a + b\n",
                "tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
                        + "def test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_wrong():\n    assert add(1, 1) == 3\n");
        VerifyReport r = grade(dir.resolve("py"), verifier("make test", ""), repo);
        assertThat(statuses(r)).containsEntry("tests/test_calc.py::test_add", "passed").containsEntry("tests/test_calc.py::test_zero", "passed")
                .containsEntry("tests/test_calc.py::test_wrong", "failed").hasSize(3);
        assertThat(r.reason()).contains("1 of 3 tests did not pass");
        assertThat(r.details()).containsEntry("runner", "pytest").containsEntry("perTest", true);
        // a wrapper runs pytest in its own process: no oracle, and the report says so with the reason
        assertThat(r.details().get("integrity")).asString().contains("reward=in-process").contains("grading is not boxed");
        assertThat(r.tests().details()).allSatisfy(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
        assertThat(r.hackFindings()).isEmpty();

        VerifyReport excluded = grade(dir.resolve("py-excluded"), verifier("make test",
                "excludedTests: [{id: \"tests/test_calc.py::test_wrong\", reason: fails at the task commit}]\n"), repo);
        assertThat(excluded.reward()).as(excluded.reason()).isEqualTo(1.0);
    }

    @Test
    void aPythonScriptStartingPytestThroughSubprocessIsGradedPerTest() {
        // yt-dlp's devscripts/run_tests.py: subprocess closes descriptors above 2, and with them the grader's channel
        Map<String, String> repo = Map.of(
                "run_tests.py", "import subprocess, sys\n\nsys.exit(subprocess.call([sys.executable, '-m', 'pytest', '-q', 'tests']))\n",
                "calc.py", "def add(a, b):\n    return a + b\n",
                "tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
                        + "def test_wrong():\n    assert add(1, 1) == 3\n");
        VerifyReport r = grade(dir.resolve("script"), verifier("python3 run_tests.py", ""), repo);
        assertThat(statuses(r)).containsEntry("tests/test_calc.py::test_add", "passed")
                .containsEntry("tests/test_calc.py::test_wrong", "failed").hasSize(2);
        assertThat(r.details()).containsEntry("runner", "pytest").containsEntry("perTest", true);
        assertThat(r.hackFindings()).isEmpty();
    }

    @Test
    void makeRunningUnittestIsGradedPerTest() {
        tool("make", "/usr/bin/make");
        Map<String, String> repo = Map.of(
                "Makefile", ".PHONY: test\ntest:\n\t-python3 -m unittest discover -s tests -t .\n\tpython3 tests/script.py\n",
                "tests/__init__.py", "",
                "tests/test_calc.py", "import unittest\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n\n"
                        + "    def test_sub(self):\n        for i in (1, 2):\n            with self.subTest(i=i):\n                self.assertLess(i, 2)\n\n"
                        + "    @unittest.skip('not here')\n    def test_later(self):\n        pass\n",
                "tests/script.py", "import unittest\n\n\nclass Script(unittest.TestCase):\n    def test_one(self):\n        pass\n\n\n"
                        + "if __name__ == '__main__':\n    unittest.main()\n");
        VerifyReport r = grade(dir.resolve("unittest"), verifier("make test", ""), repo);
        assertThat(statuses(r)).containsEntry("tests.test_calc.Calc.test_add", "passed").containsEntry("tests.test_calc.Calc.test_sub", "failed")
                .containsEntry("tests.test_calc.Calc.test_later", "skipped").containsEntry("__main__.Script.test_one", "passed").hasSize(4);
        assertThat(r.details()).containsEntry("runner", "unittest");
        assertThat(r.hackFindings()).isEmpty();
    }

    @Test
    void aShellScriptRunningGoTestTwiceIsGradedPerTestWithGoCommandsLeftAlone() {
        String go = tool("go", "/usr/local/go/bin/go");
        String goDir = Path.of(go).getParent().toString();
        Map<String, String> repo = Map.of(
                "ci.sh", "set -e\nexport PATH=\"$PATH:" + goDir + "\"\nexport GOCACHE=" + CacheSandbox.CACHE.resolve("go-build") + "\n"
                        + "go vet ./...\ngo list ./... > /dev/null\ngo test ./...\ngo test -run TestAdd -v ./...\n",
                "go.mod", "module example.com/calc\n\ngo 1.21\n",
                "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
                "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n"
                        + "func TestSub(t *testing.T) {\n\tt.Run(\"inner case\", func(t *testing.T) {})\n}\n");
        VerifyReport r = grade(dir.resolve("go"), verifier("bash ci.sh", ""), repo);
        assertThat(r.details().get("integrity")).as("go builds tests and code into one binary").asString().contains("reward=in-process");
        assertThat(statuses(r)).containsEntry("example.com/calc::TestAdd", "passed").containsEntry("example.com/calc::TestSub", "passed")
                .containsEntry("example.com/calc::TestSub/inner_case", "passed").containsEntry("example.com/calc::TestAdd #2", "passed").hasSize(4);
        assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
        assertThat(r.details()).containsEntry("runner", "go");

        VerifyReport bug = grade(dir.resolve("go-bug"), verifier("bash ci.sh", ""), with(repo, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n"));
        assertThat(statuses(bug)).containsEntry("example.com/calc::TestAdd", "failed").containsEntry("example.com/calc::TestSub", "passed");
        assertThat(bug.reward()).isEqualTo(0.0);
    }

    @Test
    void makeRunningAnNpmScriptRunningNodeTestIsGradedPerTest() {
        String node = tool("node", "/usr/bin/node");
        tool("npm", "/usr/bin/npm");
        tool("make", "/usr/bin/make");
        Map<String, String> repo = Map.of(
                "Makefile", ".PHONY: test\ntest:\n\tnpm test\n",
                "package.json", "{\"name\":\"fx\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"" + node + " --test\"}}\n",
                "test/a.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                        + "test('adds', () => assert.strictEqual(1 + 1, 2));\n"
                        + "test.describe('grp', () => { test.it('inner', () => {}); test.it('broken', () => assert.strictEqual(1, 2)); });\n",
                "test/b.test.js", "const test = require('node:test');\ntest('other file', () => {});\n");
        VerifyReport r = grade(dir.resolve("node"), verifier("make test", ""), repo);
        assertThat(statuses(r)).containsEntry("adds", "passed").containsEntry("grp > inner", "passed").containsEntry("grp > broken", "failed")
                .containsEntry("other file", "passed").doesNotContainKey("grp").hasSize(4);
        assertThat(r.details()).containsEntry("runner", "node-test");
        assertThat(r.reason()).contains("1 of 4 tests did not pass");
    }

    @Test
    void cargoTestThroughMakeIsReadFromLibtestsLines() {
        String cargo = tool("cargo", System.getProperty("user.home") + "/.cargo/bin/cargo");
        tool("make", "/usr/bin/make");
        String rustup = System.getenv().getOrDefault("RUSTUP_HOME", System.getProperty("user.home") + "/.rustup");
        String homes = "RUSTUP_HOME=" + rustup + " CARGO_HOME=" + Path.of(cargo).getParent().getParent() + " "; // grading's HOME is its own
        Map<String, String> repo = Map.of(
                "Makefile", ".PHONY: test\ntest:\n\t" + homes + "CARGO_TARGET_DIR=$(HOME)/target " + cargo + " test --offline\n",
                "Cargo.toml", "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                "Cargo.lock", "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n\n[[package]]\nname = \"fx\"\nversion = \"0.1.0\"\n", // the test tier's tree is read-only
                "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 3), 5); }\n"
                        + "    #[test]\n    fn wrong() { assert_eq!(super::add(1, 1), 3); }\n}\n");
        VerifyReport r = grade(dir.resolve("cargo"), verifier("make test", ""), repo);
        assertThat(statuses(r)).as(r.reason() + " " + r.details()).containsEntry("fx/src/lib.rs::tests::adds", "passed").containsEntry("fx/src/lib.rs::tests::wrong", "failed");
        assertThat(r.details()).containsEntry("runner", "cargo");
    }

    @Test
    void aWrapperWhoseRunnerReportsNothingIsOneExecutionAndSaysSo() {
        tool("make", "/usr/bin/make");
        Map<String, String> repo = Map.of("Makefile", ".PHONY: test\ntest:\n\ttest -f data.txt\n", "data.txt", "x\n");
        VerifyReport ok = grade(dir.resolve("none"), verifier("make test", ""), repo);
        assertThat(ok.reward()).as(ok.reason()).isEqualTo(1.0);
        assertThat(ok.reason()).contains("no per-test results").contains("graded as one execution");
        assertThat(ok.details()).containsEntry("perTest", false);

        VerifyReport failing = grade(dir.resolve("none-fails"), verifier("make test", ""), Map.of("Makefile", ".PHONY: test\ntest:\n\ttest -f data.txt\n"));
        assertThat(failing.reward()).isEqualTo(0.0);
        assertThat(failing.reason()).contains("no per-test results");

        VerifyReport listed = grade(dir.resolve("none-listed"), verifier("make test", "passToPass: [tests/test_x.py::test_a]\n"), repo);
        assertThat(listed.reward()).as("listed tests that never ran do not pass").isEqualTo(0.0);
        assertThat(listed.reason()).contains("no per-test results");
    }
}
