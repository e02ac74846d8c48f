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
}
