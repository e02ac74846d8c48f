package dev.crucible.cli.derive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.config.ExcludedTest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two baseline runs' results (as result.json gives them) into passToPass and exclusions: flaky, offline, failing, skipped. */
class BaselineCompareTest {
    private static LocalRuns.Outcome run(Map<String, String> tests, Map<String, String> messages) {
        return new LocalRuns.Outcome(0.0, "Succeeded", tests, "", 1.0, messages);
    }

    @Test
    void aTestThatPassesOnceIsFlakyOneThatNamesTheNetworkIsOfflineSkippedOnesAreNeither() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("t::steady", "passed");
        a.put("t::flaky", "passed");
        a.put("t::net", "failed");
        a.put("t::broken", "error");
        a.put("t::skip", "skipped");
        Map<String, String> b = new LinkedHashMap<>(a);
        b.put("t::flaky", "failed");
        Baseline.Result r = Baseline.compare(run(a, Map.of("t::net", "E   socket.gaierror: [Errno -3] Temporary failure in name resolution",
                "t::broken", "Traceback\nE   ImportError: cannot import name 'x'")), run(b, Map.of()));
        assertThat(r.passToPass()).containsExactly("t::steady");
        assertThat(r.excluded()).extracting(ExcludedTest::id).containsExactly("t::flaky", "t::net", "t::broken");
        assertThat(r.excluded().get(0).reason()).isEqualTo("flaky at the task commit: passed in the first baseline run, failed in the second");
        assertThat(r.excluded().get(1).reason()).startsWith("fails at the task commit without network: E   socket.gaierror");
        assertThat(r.excluded().get(2).reason()).isEqualTo("fails at the task commit with a no-op agent (error): ImportError: cannot import name 'x'");
        assertThat(r.usable()).isTrue();

        Baseline.Result none = Baseline.compare(run(Map.of("t::x", "failed"), Map.of()), run(Map.of("t::x", "failed"), Map.of()));
        assertThat(none.usable()).isFalse();
        assertThat(none.unusable()).startsWith("no test passes at the task commit");
    }

    /**
     * A test the isolated oracle could not split passes only in-process, which the fence does not count: it is no
     * passToPass test (every honest run would fail it) but an exclusion that says so; a baseline of only such tests
     * is unusable and names the switch.
     */
    @Test
    void aTestGradedOnlyInProcessIsExcludedSayingWhy() {
        String why = "passed in-process (a test monkeypatches calc.config), beside the code under test, which can forge such a verdict: not counted";
        Map<String, String> a = new LinkedHashMap<>();
        a.put("t::split", "passed");
        a.put("t::patched", "untrusted");
        Baseline.Result r = Baseline.compare(run(a, Map.of("t::patched", why)), run(a, Map.of()));
        assertThat(r.passToPass()).containsExactly("t::split");
        assertThat(r.excluded()).singleElement().satisfies(e -> {
            assertThat(e.id()).isEqualTo("t::patched");
            assertThat(e.reason()).startsWith("untrusted at the task commit with a no-op agent: passed in-process (a test monkeypatches calc.config)");
        });
        Baseline.Result none = Baseline.compare(run(Map.of("t::patched", "untrusted"), Map.of()), run(Map.of("t::patched", "untrusted"), Map.of()));
        assertThat(none.unusable()).contains("1 of them graded only in-process").contains("inProcessVerdicts: trusted");
    }

    /**
     * A parametrized test whose ids carry a run-time value the grader does not normalise (a uuid, a random seed): each
     * run reports it under another id. It is excluded as an unstable id, not as flaky or failing; its fixed siblings and
     * a test that simply vanished in the second run are judged as before.
     */
    @Test
    void anIdCollectedUnderAnotherNameInEachRunIsUnstableNotFlaky() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("t.py::test_u[fixed]", "passed");
        a.put("t.py::test_u[3f2a9c]", "passed");
        a.put("t.py::test_u[e81b07]", "failed");
        a.put("t.py::test_gone[x]", "passed");
        Map<String, String> b = new LinkedHashMap<>();
        b.put("t.py::test_u[fixed]", "passed");
        b.put("t.py::test_u[77d0e4]", "passed");
        b.put("t.py::test_u[0c5a11]", "passed");
        Baseline.Result r = Baseline.compare(run(a, Map.of()), run(b, Map.of()));
        assertThat(r.passToPass()).containsExactly("t.py::test_u[fixed]");
        assertThat(r.excluded()).extracting(ExcludedTest::id).containsExactly("t.py::test_u[3f2a9c]", "t.py::test_u[e81b07]", "t.py::test_gone[x]");
        assertThat(r.excluded().get(0).reason()).startsWith("unstable id: t.py::test_u is collected under other parameter ids in each run");
        assertThat(r.excluded().get(1).reason()).startsWith("unstable id: ");
        assertThat(r.excluded().get(2).reason()).isEqualTo("flaky at the task commit: passed in the first baseline run, not reported in the second");
    }
}
