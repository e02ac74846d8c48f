package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The channel protocol's rules, one anomaly at a time, against a clean run that raises nothing. */
class ChannelReportTest {
    static final String NONCE = "n0nce";

    /** Builds the lines a reporter writes, numbering them as it does. */
    static final class Run {
        final List<String> lines = new ArrayList<>();
        long seq;

        Run raw(String json) {
            lines.add(json);
            return this;
        }

        Run rec(String type, String fields) {
            return raw("{\"v\":1,\"seq\":" + (++seq) + ",\"nonce\":\"" + NONCE + "\",\"pid\":7,\"type\":\"" + type + "\"" + (fields.isEmpty() ? "" : "," + fields) + "}");
        }

        Run test(String id, String when, String outcome) {
            return rec("test", "\"nodeid\":\"" + id + "\",\"when\":\"" + when + "\",\"outcome\":\"" + outcome + "\",\"duration\":0.001,\"wasxfail\":false");
        }

        Run passing(String id) {
            return test(id, "setup", "passed").test(id, "call", "passed").test(id, "teardown", "passed");
        }

        Run end(int status, int failed, int passed) {
            return rec("end", "\"exitstatus\":" + status + ",\"testsfailed\":" + failed + ",\"testscollected\":2,\"stats\":{\"passed\":" + passed + "}");
        }

        ChannelReport.Result parse(int exit) {
            return ChannelReport.parse(new ResultChannel.Lines(lines, false, false), NONCE, exit, false, true);
        }
    }

    static Run started() { return new Run().rec("start", "\"python\":\"3.11\""); }

    private static List<String> evidence(ChannelReport.Result r) { return r.findings().stream().map(IntegrityFinding::evidence).toList(); }

    @Test
    void cleanRunHasNoFinding() {
        ChannelReport.Result r = started().passing("t.py::a").test("t.py::b", "setup", "passed").test("t.py::b", "call", "failed")
                .test("t.py::b", "teardown", "passed").end(1, 1, 1).parse(1);
        assertThat(r.findings()).isEmpty();
        assertThat(r.tests()).extracting(TestCase::status).containsExactly(TestStatus.PASSED, TestStatus.FAILED);
        assertThat(r.ended()).isEqualTo(1);
    }

    @Test
    void secondReportForAPhaseVoidsTheTest() {
        ChannelReport.Result r = started().test("t.py::a", "setup", "passed").test("t.py::a", "call", "failed").test("t.py::a", "call", "passed")
                .test("t.py::a", "teardown", "passed").end(1, 1, 0).parse(1);
        assertThat(evidence(r)).anySatisfy(e -> assertThat(e).contains("a contradicting report for t.py::a (call): failed then passed"));
        assertThat(r.tests()).extracting(TestCase::status).containsExactly(TestStatus.UNTRUSTED);
    }

    @Test
    void reportAfterSessionEndIsAFinding() {
        ChannelReport.Result r = started().passing("t.py::a").end(0, 0, 1).test("t.py::b", "call", "passed").parse(0);
        assertThat(evidence(r)).anySatisfy(e -> assertThat(e).contains("arrived after the session ended"));
        assertThat(r.tests()).filteredOn(t -> t.id().equals("t.py::b")).extracting(TestCase::status).containsExactly(TestStatus.UNTRUSTED);
    }

    @Test
    void missingSessionEndWithExitZeroIsCritical() {
        ChannelReport.Result r = started().passing("t.py::a").parse(0);
        assertThat(r.findings()).anySatisfy(f -> {
            assertThat(f.severity()).isEqualTo("critical");
            assertThat(f.evidence()).contains("never reached the end of its session");
        });
        assertThat(ChannelReport.distrust(r.tests(), r.findings())).extracting(TestCase::status).containsOnly(TestStatus.UNTRUSTED);
    }

    @Test
    void missingSessionEndAfterATimeoutIsNoFinding() {
        Run run = started().passing("t.py::a");
        ChannelReport.Result r = ChannelReport.parse(new ResultChannel.Lines(run.lines, false, false), NONCE, -1, true, true);
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void countsThatDisagreeWithPytestsSummaryAreFindings() {
        ChannelReport.Result r = started().passing("t.py::a").passing("t.py::b").end(0, 1, 1).parse(0);
        assertThat(evidence(r)).anySatisfy(e -> assertThat(e).contains("pytest counted 1 failed reports, the result channel 0"))
                .anySatisfy(e -> assertThat(e).contains("summary counts 1 passed tests, the result channel 2"));
    }

    @Test
    void exitCodeThatDisagreesWithTheSessionIsAFinding() {
        ChannelReport.Result r = started().passing("t.py::a").test("t.py::b", "call", "failed").end(1, 1, 1).parse(0);
        assertThat(evidence(r)).anySatisfy(e -> assertThat(e).contains("exited 0 but its pytest session ended with status 1"));
    }

    /**
     * Host round 5: a graded process the box's memory limit killed after its session ended (exit 137) was a critical
     * finding, and the run Hacked. With the box's note on stderr the finding is info and names the limit; the same exit
     * with no note, or a note on a command that exited by itself, stays critical.
     */
    @Test
    void aProcessTheBoxsMemoryLimitKilledAfterItsSessionIsNamedNotFlagged() {
        String stderr = "Traceback ...\nMemoryError\n" + ChannelReport.LIMIT_NOTE + "memory limit 1Gi reached (OOM kill)\n";
        String limit = ChannelReport.limitNote(stderr);
        assertThat(limit).isEqualTo("memory limit 1Gi reached (OOM kill)");
        Run run = started().passing("t.py::a").passing("t.py::b").end(0, 0, 2);
        ChannelReport.Result killed = ChannelReport.parse(new ResultChannel.Lines(run.lines, false, false), NONCE, 137, false, true, limit);
        assertThat(killed.findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo("info");
            assertThat(f.evidence()).contains("exited 137 after its pytest session ended with status 0")
                    .contains("the grading box's memory limit 1Gi reached (OOM kill) killed it");
        });
        assertThat(killed.tests()).extracting(TestCase::status).containsOnly(TestStatus.PASSED);
        assertThat(ChannelReport.parse(new ResultChannel.Lines(run.lines, false, false), NONCE, 137, false, true, null).findings())
                .singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo("critical"));
        assertThat(ChannelReport.parse(new ResultChannel.Lines(run.lines, false, false), NONCE, 1, false, true, limit).findings())
                .as("exit 1 is the command's own choice, whatever stderr says").singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo("critical"));
        // cut short by the kill: still high (tests may be missing), and the reason is the limit
        ChannelReport.Result early = ChannelReport.parse(new ResultChannel.Lines(started().passing("t.py::a").lines, false, false), NONCE, 137,
                false, true, limit);
        assertThat(evidence(early)).anySatisfy(e -> assertThat(e).contains("never reached the end of its session (exit code 137): the grading box's memory limit 1Gi reached (OOM kill) stopped it"));
        assertThat(ChannelReport.limitNote("no note\n")).isNull();
    }

    @Test
    void linesWithoutTheNonceOrSequenceAreFindings() {
        Run run = started().passing("t.py::a");
        run.raw("{\"v\":1,\"seq\":5,\"nonce\":\"guess\",\"pid\":7,\"type\":\"test\",\"nodeid\":\"t.py::b\",\"when\":\"call\",\"outcome\":\"passed\"}");
        run.raw("not json");
        run.seq += 3;
        ChannelReport.Result r = run.end(0, 0, 1).parse(0);
        assertThat(evidence(r)).anySatisfy(e -> assertThat(e).contains("does not carry the run's nonce"))
                .anySatisfy(e -> assertThat(e).contains("is not a reporter record"))
                .anySatisfy(e -> assertThat(e).contains("sequence of process 7 went from 4 to 8"));
        assertThat(r.tests()).extracting(TestCase::id).containsExactly("t.py::a");
    }

    @Test
    void phasesAggregateLikePytestsJUnitReport() {
        Run run = started();
        run.test("x", "setup", "failed").test("x", "teardown", "passed");
        run.test("s", "setup", "skipped");
        run.rec("test", "\"nodeid\":\"xf\",\"when\":\"call\",\"outcome\":\"skipped\",\"wasxfail\":true");
        run.rec("test", "\"nodeid\":\"xp\",\"when\":\"call\",\"outcome\":\"passed\",\"wasxfail\":true");
        run.test("td", "setup", "passed").test("td", "call", "passed").test("td", "teardown", "failed");
        ChannelReport.Result r = run.end(1, 2, 1).parse(1);
        assertThat(r.tests()).extracting(TestCase::status)
                .containsExactly(TestStatus.ERROR, TestStatus.SKIPPED, TestStatus.XFAILED, TestStatus.XPASSED, TestStatus.ERROR);
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void junitThatDisagreesWithTheChannelIsAFinding() {
        ChannelReport.Result r = started().passing("t.py::a").test("t.py::b", "setup", "passed").test("t.py::b", "call", "failed")
                .test("t.py::b", "teardown", "passed").end(1, 1, 1).parse(1);
        List<TestCase> junit = List.of(new TestCase("t.py::a", TestStatus.PASSED, null, null, null),
                new TestCase("t.py::b", TestStatus.PASSED, null, null, null), new TestCase("t.py::c", TestStatus.PASSED, null, null, null));
        assertThat(TestSuiteStrategy.crossCheck(r, junit)).extracting(IntegrityFinding::evidence)
                .containsExactly("the JUnit file says t.py::b passed, the result channel failed",
                        "the JUnit file reports t.py::c passed; the result channel never reported it");
    }
}
