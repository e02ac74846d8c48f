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

    /**
     * gpt-engineer at its HEAD: 3 of 18 tests passed only in-process (a patch of os.environ, one past its round-trip
     * budget), UNTRUSTED and not counted. They are no failure at the task commit: excluded with that reason, counted in
     * the report, and an UNTRUSTED test for any other reason (the result channel) is judged as before.
     */
    @Test
    void aTestPassingOnlyInProcessIsExcludedAsSuchAndCounted() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("t::isolated", "passed");
        a.put("t::patches", "untrusted");
        a.put("t::channel", "untrusted");
        String why = "passed in-process (a test patches environ of os, whose copy in the code under test's process it does not"
                + " reach), beside the code under test, which can forge such a verdict: not counted (spec.verifier.inProcessVerdicts:"
                + " untrusted; trusted counts it)";
        Map<String, String> m = Map.of("t::patches", why, "t::channel", "reported twice or late on the result channel");
        Baseline.Result r = Baseline.compare(run(a, m), run(a, m));
        assertThat(r.passToPass()).containsExactly("t::isolated");
        assertThat(r.excluded()).extracting(ExcludedTest::id).containsExactly("t::patches", "t::channel");
        assertThat(r.excluded().get(0).reason()).isEqualTo(Baseline.IN_PROCESS
                + " (a test patches environ of os, whose copy in the code under test's process it does not reach)");
        assertThat(r.excluded().get(1).reason()).startsWith("fails at the task commit with a no-op agent (untrusted)");
        assertThat(Baseline.inProcessOnly(r)).isEqualTo(1);
        assertThat(Baseline.json(r)).containsEntry("inProcessOnly", 1L);

        Map<String, String> only = Map.of("t::patches", "untrusted");
        Baseline.Result none = Baseline.compare(run(only, m), run(only, m));
        assertThat(none.unusable()).isEqualTo("no test passes at the task commit in both baseline runs (1 reported, 1 excluded, "
                + "1 of them passing only in-process)");
    }
}
