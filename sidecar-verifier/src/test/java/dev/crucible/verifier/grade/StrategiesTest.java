package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.support.Envs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each verification strategy and reward mode on real programs. */
class StrategiesTest {
    @TempDir
    Path dir;

    static final String SUM = "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))\n";

    @Test
    void ioMatchingWithFractionAndCodeRl() {
        String v = """
                type: io
                command: python3 sum.py
                rewardMode: %s
                ioCases:
                  - {name: small, stdin: "1 2 3\\n", expectedStdout: "6"}
                  - {name: negative, stdin: "10 -2", expectedStdout: "8\\n"}
                  - {name: wrong, stdin: "2 2", expectedStdout: "5"}
                  - {name: crash, stdin: "x", expectedStdout: "0"}
                """;
        VerifyReport fraction = Envs.grade(Envs.make(dir.resolve("a"), v.formatted("fraction"), Map.of("sum.py", SUM)));
        assertThat(fraction.reward()).isEqualTo(0.5);
        assertThat(fraction.tests().details()).extracting(t -> t.status().json()).containsExactly("passed", "passed", "failed", "error");
        VerifyReport coderl = Envs.grade(Envs.make(dir.resolve("b"), v.formatted("coderl"), Map.of("sum.py", SUM)));
        assertThat(coderl.reward()).isEqualTo(-0.6);
        assertThat(coderl.category()).isEqualTo("runtime-error");
    }

    @Test
    void ioCaseArgumentsAreQuotedAndTimeoutsKill() {
        String v = """
                type: io
                command: python3 echo.py
                ioCases:
                  - {name: args, args: ["a b", "it's"], expectedStdout: "a b|it's"}
                  - {name: hangs, args: ["hang"], expectedStdout: "", timeoutSeconds: 1}
                rewardMode: fraction
                """;
        VerifyReport r = Envs.grade(Envs.make(dir, v, Map.of("echo.py",
                "import sys, time\nif sys.argv[1:] == ['hang']:\n    time.sleep(60)\nprint('|'.join(sys.argv[1:]))\n")));
        assertThat(r.reward()).isEqualTo(0.5);
        assertThat(r.tests().details().get(1).message()).contains("timed out");
        assertThat(r.timings().gradeMs()).isLessThan(20_000);
    }

    @Test
    void assertionHarnessAndCodeRlClasses() {
        Map<String, String> files = Map.of("sol.py", "def add(a, b):\n    return a + b\n",
                "check.py", "from sol import add\nassert add(2, 2) == 4\nassert add(-1, 1) == 0\n",
                "check_bad.py", "from sol import add\nassert add(2, 2) == 5\n",
                "check_crash.py", "from sol import mul\n");
        assertThat(Envs.grade(Envs.make(dir.resolve("a"), "type: assertion\ncommand: python3 check.py\nrewardMode: coderl\n", files)).reward()).isEqualTo(1.0);
        assertThat(Envs.grade(Envs.make(dir.resolve("b"), "type: assertion\ncommand: python3 check_bad.py\nrewardMode: coderl\n", files)).reward()).isEqualTo(-0.3);
        assertThat(Envs.grade(Envs.make(dir.resolve("c"), "type: assertion\ncommand: python3 check_crash.py\nrewardMode: coderl\n", files)).reward()).isEqualTo(-0.6);
        VerifyReport build = Envs.grade(Envs.make(dir.resolve("d"),
                "type: assertion\nbuildCommand: python3 -m py_compile broken.py\ncommand: python3 check.py\nrewardMode: coderl\n",
                Map.of("broken.py", "def f(:\n", "check.py", "pass\n")));
        assertThat(build.reward()).isEqualTo(-1.0);
        assertThat(build.category()).isEqualTo("build-failed");
    }

    @Test
    void executionOnly() {
        assertThat(Envs.grade(Envs.make(dir.resolve("a"), "type: execution\ncommand: python3 main.py\n", Map.of("main.py", "print('hi')\n"))).reward()).isEqualTo(1.0);
        VerifyReport crash = Envs.grade(Envs.make(dir.resolve("b"), "type: execution\ncommand: python3 main.py\nrewardMode: coderl\n",
                Map.of("main.py", "raise SystemExit(3)\n")));
        assertThat(crash.reward()).isEqualTo(-0.6);
    }

    @Test
    void testSuiteCodeRlAndFractionWithoutSweLists() {
        Map<String, String> files = Map.of("m.py", "def f(x):\n    return x * 2\n",
                "tests/test_m.py", "from m import f\n\ndef test_a():\n    assert f(1) == 2\n\ndef test_b():\n    assert f(2) == 5\n\ndef test_c():\n    assert f(0) == 0\n");
        String base = "type: test-suite\ncommand: python3 -m pytest -q\nrewardMode: %s\n";
        VerifyReport frac = Envs.grade(Envs.make(dir.resolve("a"), base.formatted("fraction"), files));
        assertThat(frac.reward()).isCloseTo(2.0 / 3, within(1e-9));
        assertThat(Envs.grade(Envs.make(dir.resolve("b"), base.formatted("coderl"), files)).reward()).isEqualTo(-0.3);
        assertThat(Envs.grade(Envs.make(dir.resolve("c"), base.formatted("binary"), files)).reward()).isZero();
    }

    @Test
    void aModuleThatFailsToImportHidesOnlyItsOwnTests() {
        Map<String, String> files = Map.of("m.py", "def f(x):\n    return x * 2\n",
                "tests/test_ok.py", "from m import f\n\ndef test_a():\n    assert f(1) == 2\n\ndef test_c():\n    assert f(0) == 0\n",
                "tests/test_broken.py", "import a_module_nobody_installed\n\ndef test_x():\n    pass\n");
        String swe = "type: test-suite\ncommand: python3 -m pytest -q\nfailToPass: ['%s']\npassToPass: ['tests/test_ok.py::test_c']\n";
        VerifyReport listed = Envs.grade(Envs.make(dir.resolve("a"), swe.formatted("tests/test_ok.py::test_a"), files));
        assertThat(listed.reward()).as(listed.toString()).isEqualTo(1.0);
        assertThat(listed.tests().details()).extracting(t -> t.id() + " " + t.status().json())
                .contains("tests/test_ok.py::test_a passed", "tests/test_ok.py::test_c passed");
        VerifyReport broken = Envs.grade(Envs.make(dir.resolve("b"), swe.formatted("tests/test_broken.py::test_x"), files));
        assertThat(broken.reward()).as("a listed test in the module that does not import").isZero();
        // without lists every module counts: the import failure fails the run
        VerifyReport all = Envs.grade(Envs.make(dir.resolve("c"), "type: test-suite\ncommand: python3 -m pytest -q\n", files));
        assertThat(all.reward()).isZero();
        assertThat(all.category()).isEqualTo("tests-failed");
    }

    @Test
    void junitXmlAndTapFrameworksFromOtherRunners() {
        String xml = "<testsuite><testcase classname=\"CalcTest\" name=\"adds\"/><testcase classname=\"CalcTest\" name=\"divides\"><failure message=\"boom\"/></testcase></testsuite>";
        VerifyReport junit = Envs.grade(Envs.make(dir.resolve("a"),
                "type: test-suite\nframework: junit-xml\ncommand: sh run.sh\nreportPath: build/report.xml\nrewardMode: fraction\n",
                Map.of("run.sh", "mkdir -p build && printf '%s' '" + xml + "' > build/report.xml\n")));
        assertThat(junit.reward()).isEqualTo(0.5);
        assertThat(junit.tests().details()).extracting(TestCase::id).containsExactly("CalcTest::adds", "CalcTest::divides");
        VerifyReport tap = Envs.grade(Envs.make(dir.resolve("b"),
                "type: test-suite\nframework: tap\ncommand: sh t.sh\nrewardMode: fraction\nfailToPass: ['2 second']\n",
                Map.of("t.sh", "echo 1..2; echo 'ok 1 - first'; echo 'ok 2 - second'\n")));
        assertThat(tap.reward()).isEqualTo(1.0);
    }

    @Test
    void compositeWeightsComponents() {
        String v = """
                type: composite
                rewardMode: weighted
                components:
                  - name: tests
                    weight: 3
                    verifier: {type: test-suite, command: python3 -m pytest -q, rewardMode: fraction}
                  - name: io
                    weight: 1
                    verifier:
                      type: io
                      command: python3 sum.py
                      ioCases: [{stdin: "1 1", expectedStdout: "3"}]
                """;
        VerifyReport r = Envs.grade(Envs.make(dir, v, Map.of("sum.py", SUM, "tests/test_s.py", "def test_ok():\n    assert True\n")));
        assertThat(r.reward()).isEqualTo(0.75);
        assertThat(r.verdict()).isEqualTo("fail");
        assertThat(r.details().get("components")).asList().hasSize(2);
    }

    @Test
    @SuppressWarnings("unchecked")
    void cureMatrixOnRealPrograms() {
        Map<String, String> files = Map.of(
                "solutions/good.py", "def absval(x):\n    return x if x >= 0 else -x\n",
                "solutions/also_good.py", "def absval(x):\n    return abs(x)\n",
                "solutions/bad.py", "def absval(x):\n    return x\n",
                "gt/test_gt.py", "def check(absval):\n    assert absval(-3) == 3 and absval(4) == 4 and absval(0) == 0\n",
                "gen/test_catches.py", "def check(absval):\n    assert absval(-1) == 1\n",
                "gen/test_weak.py", "def check(absval):\n    assert absval(2) == 2\n",
                "gen/test_wrong.py", "def check(absval):\n    assert absval(-2) == -2\n",
                "run.py", "import runpy, sys\nsol = runpy.run_path(sys.argv[1])\nrunpy.run_path(sys.argv[2])['check'](sol['absval'])\n");
        String v = """
                type: bidirectional
                rewardMode: fraction
                bidirectional:
                  solutions: [solutions/good.py, solutions/also_good.py, solutions/bad.py]
                  tests: [gen/test_catches.py, gen/test_weak.py, gen/test_wrong.py]
                  groundTruthTests: [gt/test_gt.py]
                  command: python3 run.py {solution} {test}
                """;
        VerifyReport r = Envs.grade(Envs.make(dir, v, files));
        Map<String, Object> d = r.details();
        assertThat((List<List<Integer>>) d.get("matrix")).containsExactly(List.of(1, 1, 1, 0), List.of(1, 1, 1, 0), List.of(0, 0, 1, 1));
        assertThat((List<Boolean>) d.get("correctSolutions")).containsExactly(true, true, false);
        assertThat((List<Double>) d.get("codeRewards")).containsExactly(1.0, 1.0, 0.0);
        assertThat((Map<String, Double>) d.get("testRewards")).containsEntry("gen/test_catches.py", 1.0)
                .containsEntry("gen/test_weak.py", 1.0 / 3).containsEntry("gen/test_wrong.py", -1.0);
        assertThat(r.reward()).isCloseTo(2.0 / 3, within(1e-9));
    }
}
