package dev.crucible.verifier.grade;

import dev.crucible.contract.OracleModes;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.oracle.OracleAttempts;
import dev.crucible.verifier.grade.oracle.OracleConfig;
import dev.crucible.verifier.grade.oracle.OracleReport;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;

/**
 * The isolated oracle's verdicts ({@link IsolatedTestSuite} runs the grading): the isolated run's, with the in-process
 * run's for the tests that could not run split, each pass confirmed by the cross-check run where one ran, the reward's
 * and each test's integrity label, and what the cross-check may leave out. Split from {@link IsolatedTestSuite}, which
 * keeps the runs themselves (the workers, the configuration, the fallback and cross-check runs).
 */
final class IsolatedVerdicts {
    private IsolatedVerdicts() {}

    /**
     * A run whose test processes the grader did not start (a wrapper's pytest, unittest): a test only the processes
     * without the oracle ran ({@code recorded} lacks it) was graded in-process there, and says why ({@code refused}).
     */
    record EntryRun(java.util.Set<String> recorded, List<String> refused) {
        static EntryRun of(Path out, OracleReport record) { return new EntryRun(record.tests().keySet(), OracleEntry.refusals(out)); }

        String why() {
            return refused.isEmpty() ? UNRECORDED : "its process could not take the isolated oracle: " + String.join("; ", refused);
        }

        /** Whether the oracle entered the run's processes and said why it stayed out (a named fallback, kept in-process). */
        boolean declared() { return !refused.isEmpty(); }

        /**
         * A test no oracle record names, in a run whose record declares no refusal: the oracle never entered its process
         * (its configuration unset, its plugin stripped from PYTEST_ADDOPTS, another interpreter that could not import it),
         * so the in-process channel's word alone is no evidence (blind round 12, x42/x26). A pass fails, saying why.
         */
        TestCase unrecorded(VerifierSpec v, TestCase t, List<String> evaded) {
            if (!t.status().counts(v.skippedCountsAsPassed())) return t.withIntegrity(TestCase.IN_PROCESS);
            evaded.add(t.id());
            return new TestCase(t.id(), TestStatus.FAILED, t.group(), t.durationMs(), "passed in-process, but " + UNRECORDED
                    + ": not counted, the isolated oracle has no record of it", TestCase.IN_PROCESS);
        }

        /** The attempt behind {@link #unrecorded}: a run that reported its tests on the channel while the oracle stayed out. */
        static IntegrityFinding evadedFinding(List<String> evaded, int total) {
            return new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "medium", null, evaded.size() + " of " + total
                    + " test(s) passed on the result channel in a process the isolated oracle never entered (no record, no refusal: its"
                    + " configuration or plugin did not reach pytest); failed, not counted: "
                    + String.join(", ", evaded.subList(0, Math.min(5, evaded.size()))), "oracle-evaded");
        }

        private static final String UNRECORDED = "run by a process without the isolated oracle (only pytest through PYTEST_ADDOPTS and the grader's unittest runs load it)";

        /** unittest's stand-in for a test module whose import needs in-process grading: that run has its tests instead. */
        static boolean placeholder(String id, OracleReport record) {
            return id.startsWith("unittest.loader._FailedTest.") && record.modules().containsKey(id.substring("unittest.loader._FailedTest.".length()));
        }
    }

    /**
     * A grading run that hit its time limit says so as a finding, with the tests it left without a result: a stall in the
     * code under test (blind round 8, x23: a 58 s sleep on pre-release input) otherwise reads as a plain failure. Info, as
     * slow honest code times out too; what the record holds of the attempts made before the limit is added.
     */
    static Outcome timedOut(Outcome o, OracleReport record) {
        List<String> missing = o.tests().stream().filter(t -> t.status() == dev.crucible.verifier.grade.result.TestStatus.MISSING
                || t.status() == dev.crucible.verifier.grade.result.TestStatus.ERROR).map(TestCase::id).toList();
        List<IntegrityFinding> findings = new ArrayList<>(o.integrity());
        findings.add(new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "info", null,
                o.reason() + " while the code under test ran; " + missing.size() + " of " + o.tests().size() + " tests without a result"
                        + (missing.isEmpty() ? "" : ": " + String.join(", ", missing.subList(0, Math.min(10, missing.size())))), "grading-timeout"));
        findings.addAll(OracleAttempts.findings(record.attempts()));
        return TestSuiteStrategy.withFindings(o, findings, o.details());
    }

    /**
     * The isolated run's verdicts, with those of the in-process run for the tests that could not run split, and, where
     * there was a cross-check run ({@code ordinary}), each pass confirmed by it ({@link #crossChecked}). The cross-check
     * run's findings are not taken: its verdicts can only lower the grade, and its run-time detectors would judge
     * honest code in the process it shares with the tests, unhardened.
     */
    static Outcome merged(VerifierSpec v, Outcome isolated, Outcome inProcess, Outcome ordinary, OracleReport record,
                                  EntryRun entry) {
        return merged(v, isolated, inProcess, ordinary, record, entry, java.util.Set.of());
    }

    /**
     * The tests a cross-check need not run, from the grade before it: those that did not pass (AND keeps them failed)
     * and those outside the reward. Their verdicts stay as graded ({@code unchecked} in {@link #merged}).
     */
    static List<String> uncheckable(VerifierSpec v, Outcome graded) {
        boolean skippedOk = v.skippedCountsAsPassed();
        boolean named = graded.tests().stream().anyMatch(t -> !t.group().equals("other") && !t.group().equals(TestSuiteStrategy.EXCLUDED));
        java.util.function.Predicate<TestCase> out = t -> !t.status().counts(skippedOk) || t.group().equals(TestSuiteStrategy.EXCLUDED)
                || named && t.group().equals("other");
        List<String> kept = graded.tests().stream().filter(out.negate()).map(TestCase::id).toList();
        // pytest deselects by prefix (test_x also drops test_x_y and test_x[1]): never one that would drop a test still counted
        return graded.tests().stream().filter(out).map(TestCase::id).distinct()
                .filter(id -> kept.stream().noneMatch(k -> k.startsWith(id))).toList();
    }

    static Outcome merged(VerifierSpec v, Outcome isolated, Outcome inProcess, Outcome ordinary, OracleReport record,
                                  EntryRun entry, java.util.Set<String> unchecked) {
        Map<String, TestCase> byId = new LinkedHashMap<>();
        if (inProcess != null) inProcess.tests().forEach(t -> byId.putIfAbsent(t.id(), t));
        Map<String, TestCase> confirm = new LinkedHashMap<>();
        if (ordinary != null) ordinary.tests().forEach(t -> confirm.putIfAbsent(t.id(), t));
        List<TestCase> reported = new ArrayList<>();
        List<String> fellBack = new ArrayList<>();
        Map<String, String> unsplit = new LinkedHashMap<>(); // tests of processes without the oracle, and why
        List<String> aware = new ArrayList<>();
        List<String> unconfirmed = new ArrayList<>();
        List<String> evaded = new ArrayList<>(); // passes no oracle record names, failed (EntryRun#unrecorded)
        for (TestCase t : isolated.tests()) {
            if (entry != null && EntryRun.placeholder(t.id(), record)) continue;
            TestCase again = record.fallsBack(t.id()) ? byId.get(t.id()) : null;
            if (again == null && entry != null && t.status() != dev.crucible.verifier.grade.result.TestStatus.MISSING
                    && !record.fallsBack(t.id()) && !entry.recorded().contains(t.id())) {
                // its verdict is the reporter's, in the process that ran it: kept only where the oracle entered that
                // process and declared why it stayed out (refused); with no record at all, it is no evidence (fails)
                TestCase inProc = entry.declared() ? t.withIntegrity(TestCase.IN_PROCESS) : entry.unrecorded(v, t, evaded);
                reported.add(crossChecked(v, inProc, confirm.get(t.id()), ordinary != null && !unchecked.contains(t.id()), aware, unconfirmed));
                fellBack.add(t.id());
                unsplit.put(t.id(), entry.why());
            } else if (again == null) {
                reported.add(crossChecked(v, t.withIntegrity(TestCase.ISOLATED), confirm.get(t.id()), ordinary != null && !unchecked.contains(t.id()), aware, unconfirmed));
            } else {
                reported.add(crossChecked(v, again.withIntegrity(TestCase.IN_PROCESS), confirm.get(t.id()), ordinary != null && !unchecked.contains(t.id()), aware, unconfirmed));
                fellBack.add(t.id());
            }
            byId.remove(t.id());
        }
        // tests the isolated run never collected: only those of a module the record says needs in-process grading
        byId.values().stream().filter(t -> record.fallsBack(t.id())).forEach(t -> {
            reported.add(crossChecked(v, t.withIntegrity(TestCase.IN_PROCESS), confirm.get(t.id()), ordinary != null && !unchecked.contains(t.id()), aware, unconfirmed));
            fellBack.add(t.id());
        });
        // the fence: an in-process pass earns nothing unless the environment trusts such verdicts (round 16)
        List<String> fenced = new ArrayList<>();
        if (!v.inProcessVerdictsTrusted()) reported.replaceAll(t -> fenced(v, t, record, unsplit, fenced));
        Outcome last = inProcess != null ? inProcess : isolated;
        int exit = last.details().get("exitCode") instanceof Integer i ? i : 0;
        // the runs' own output tails: a grading failure (pytest's exit 4, a crash at collection) must show its cause
        ExecResult run = new ExecResult(exit, outputTail(isolated, inProcess), "", false, false, isolated.commandMs() + (inProcess == null ? 0 : inProcess.commandMs()), -1);
        String reportError = isolated.tests().isEmpty() && inProcess != null && inProcess.tests().isEmpty() ? inProcess.reason() : null;
        Outcome o = TestSuiteStrategy.score(v, reported, run, reportError, Duration.ofSeconds(v.timeoutOrDefault()));
        List<IntegrityFinding> findings = new ArrayList<>(isolated.integrity());
        if (inProcess != null) findings.addAll(inProcess.integrity());
        if (ordinary != null) findings.addAll(tamperingInCrossCheck(ordinary));
        if (!aware.isEmpty()) {
            findings.add(new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "high", null,
                    aware.size() + " test(s) passed as graded and failed in the cross-check run (the same tree in an interpreter"
                            + " started as a user's): it behaves differently when it can tell how it is graded: "
                            + String.join(", ", aware.subList(0, Math.min(5, aware.size()))), "grader-aware"));
        }
        if (!evaded.isEmpty()) findings.add(EntryRun.evadedFinding(evaded, isolated.tests().size()));
        if (!fenced.isEmpty()) findings.add(fencedFinding(fenced, reported.size()));
        if (!unconfirmed.isEmpty()) {
            findings.add(new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "info", null,
                    unconfirmed.size() + " test(s) passed as graded but the cross-check run gave them no result or an untrusted one; not counted as passed: "
                            + String.join(", ", unconfirmed.subList(0, Math.min(5, unconfirmed.size()))) + crossCheckRun(ordinary), "grader-aware-unconfirmed"));
        }
        Optional.ofNullable(framedPasses(reported, unconfirmed, record.attempts())).ifPresent(findings::add);
        // what the code under test tried; a voiding attempt's evidence says how many tests passed in this grade
        findings.addAll(OracleAttempts.findings(record.attempts(), o.tests().stream().filter(t -> t.status().counts(false)).count(), o.tests().size()));
        Map<String, Object> details = new LinkedHashMap<>(o.details());
        isolated.details().forEach(details::putIfAbsent);
        Map<String, Object> integrity = new LinkedHashMap<>();
        // the tests that count: FAIL_TO_PASS / PASS_TO_PASS where the environment names them, else every test graded
        boolean named = o.tests().stream().anyMatch(t -> !t.group().equals("other") && !t.group().equals(TestSuiteStrategy.EXCLUDED));
        boolean allIsolated = o.tests().stream().filter(t -> !t.group().equals(TestSuiteStrategy.EXCLUDED) && (!named || !t.group().equals("other")))
                .allMatch(t -> TestCase.ISOLATED.equals(t.integrity()) || fenced.contains(t.id())); // a fenced test can only lower it
        integrity.put("reward", allIsolated ? TestCase.ISOLATED : TestCase.IN_PROCESS);
        integrity.put("isolatedTests", o.tests().stream().filter(t -> TestCase.ISOLATED.equals(t.integrity())).count());
        integrity.put("inProcessTests", fellBack.subList(0, Math.min(50, fellBack.size())));
        if (ordinary != null) integrity.put("crossChecked", true);
        integrity.put("inProcessVerdicts", v.inProcessVerdictsTrusted() ? OracleModes.TRUSTED : OracleModes.UNTRUSTED);
        if (!fenced.isEmpty()) integrity.put("untrustedInProcess", fenced.size());
        Map<String, String> reasons = new LinkedHashMap<>();
        record.modules().forEach(reasons::put);
        record.tests().forEach((id, t) -> { if (!t.isolated() && reasons.size() < 20) reasons.put(id, String.join("; ", t.reasons())); });
        unsplit.forEach((id, why) -> { if (reasons.size() < 20) reasons.put(id, why); });
        if (entry != null && !entry.refused().isEmpty()) integrity.put("refused", entry.refused());
        if (!reasons.isEmpty()) integrity.put("inProcessBecause", reasons);
        // tests stopped at their round-trip budget, every one named: the tree can inflate its own counts to be graded
        // in-process, so a trainer sees how much of the grade that is (the share of the graded tests) and can filter
        List<String> overBudget = record.overBudget().stream().filter(fellBack::contains).toList();
        if (!overBudget.isEmpty()) {
            integrity.put("roundTripBudget", Map.of("limit", OracleConfig.ROUND_TRIP_BUDGET, "tests", overBudget,
                    "share", o.tests().isEmpty() ? 0.0 : Math.round(1000.0 * overBudget.size() / o.tests().size()) / 1000.0));
        }
        integrity.put("workers", Map.of("starts", record.workerStarts(), "calls", record.calls(), "ended", record.workerEnded(),
                "startWaitMs", Math.round(record.startWaitSeconds() * 1000)));
        details.put("integrity", integrity);
        o = new Outcome(o.type(), o.reward(), o.verdict(), o.category(), o.reason(), o.partialCredit(), o.tests(), details,
                isolated.commandMs() + (inProcess == null ? 0 : inProcess.commandMs()) + (ordinary == null ? 0 : ordinary.commandMs()), List.of());
        return TestSuiteStrategy.withFindings(o, findings, details);
    }

    /**
     * A pass graded in-process in an isolated run, where the environment does not trust such verdicts: untrusted, not
     * counted, with why the oracle could not split it. The code under test shared the process that computed it and can
     * read what the test hands over or holds (blind round 16: 6 of 7 fresh exploits forged such passes through the
     * task's own loader, {@code sys.modules}, a lambda's globals). A failure stays as it is: steering a test here only
     * fails it.
     */
    static TestCase fenced(VerifierSpec v, TestCase t, OracleReport record, Map<String, String> unsplit, List<String> fenced) {
        if (!TestCase.IN_PROCESS.equals(t.integrity()) || !t.status().counts(v.skippedCountsAsPassed())) return t;
        fenced.add(t.id());
        String why = record.fallBackReason(t.id());
        if (why == null || why.isBlank()) why = unsplit.getOrDefault(t.id(), "the isolated oracle could not split it");
        return new TestCase(t.id(), TestStatus.UNTRUSTED, t.group(), t.durationMs(), "passed in-process (" + why + "), beside the code"
                + " under test, which can forge such a verdict: not counted (spec.verifier.inProcessVerdicts: untrusted; trusted counts it)",
                t.integrity());
    }

    /** The fenced passes, named for the reader: no attempt by themselves (honest tests fall back too), so info. */
    static IntegrityFinding fencedFinding(List<String> fenced, int total) {
        return new IntegrityFinding(dev.crucible.contract.DetectorNames.GRADER_TAMPERING, "info", null, fenced.size() + " of " + total
                + " test(s) passed only in-process (the isolated oracle could not split them), not counted: "
                + String.join(", ", fenced.subList(0, Math.min(5, fenced.size())))
                + "; an environment that accepts forgeable verdicts sets spec.verifier.inProcessVerdicts: trusted", "in-process-untrusted");
    }

    /**
     * Passes the cross-check could not confirm because its reporter saw the tree take a test's frame, by a tree that in the
     * worker asked who called it (compared the call frame's file name, looked up its module's {@code __file__}): the pass
     * hung on its caller, a test or the worker (blind round 13, x14/x15), an attempt (medium), not merely unconfirmed.
     * Either alone is honest code: a setting or {@code __name__} read from the caller (examples/integrity r7-h17, r7-h18)
     * is no identity read, and an identity read whose passes the cross-check confirmed voided nothing. Null: none.
     */
    static IntegrityFinding framedPasses(List<TestCase> reported, List<String> unconfirmed, List<OracleReport.Attempt> attempts) {
        List<String> framed = reported.stream().filter(t -> unconfirmed.contains(t.id()) && t.message() != null
                && t.message().contains("untrusted in the cross-check run") && t.message().contains("took the frame of")).map(TestCase::id).toList();
        List<String> asked = attempts.stream().filter(a -> a.kind().equals("caller-identity")).map(OracleReport.Attempt::detail).toList();
        if (framed.isEmpty() || asked.isEmpty()) return null;
        return new IntegrityFinding(dev.crucible.contract.DetectorNames.FRAME_INTROSPECTION, "medium", null,
                framed.size() + " test(s) passed as graded that the cross-check could not confirm because the tree took a test's frame there,"
                        + " and in the worker it asked who called it (" + asked.get(0) + "): its answers may hang on its caller: "
                        + String.join(", ", framed.subList(0, Math.min(5, framed.size()))), "grader-aware-frame");
    }

    /**
     * What the cross-check run itself said, for a reader of unconfirmed passes: its reason, exit code, test count and
     * output tail (a run that broke or timed out under load otherwise reads as a tree that hid its results).
     */
    /**
     * What the cross-check run's reporter saw that no honest tree does: tampering with the grader's own machinery (a record
     * forged onto the result channel, the test-module guard or pytest's hook caller replaced, pytest's internals changed).
     * The rest of that run's findings are not taken: its run-time detectors judge code beside the tests (an honest frame
     * read or ctypes call), which is the worker audit's business. Taken, these flag an attempt made only where the tree is
     * graded in-process, which the AND with that run already kept from earning (issue 33: attempts are flagged).
     */
    static List<IntegrityFinding> tamperingInCrossCheck(Outcome ordinary) {
        return ordinary.integrity().stream().filter(f -> f.rule() != null && CROSS_CHECK_TAMPERING.contains(f.rule()))
                .map(f -> new IntegrityFinding(f.detector(), f.severity(), f.path(), "in the cross-check run (the tree graded again"
                        + " in-process, as a user's run): " + f.evidence(), f.rule())).toList();
    }

    static final java.util.Set<String> CROSS_CHECK_TAMPERING = java.util.Set.of(ChannelReport.FORGED_RECORD, "test-module-guard",
            "hook-caller-changed", "internals-changed");

    static String crossCheckRun(Outcome ordinary) {
        if (ordinary == null) return "";
        String tail = ordinary.details().get("outputTail") instanceof String t ? t.strip() : "";
        if (tail.length() > 400) tail = "…" + tail.substring(tail.length() - 400);
        return "; the cross-check run: " + (ordinary.reason() == null ? "no reason given" : ordinary.reason()) + ", exit "
                + ordinary.details().getOrDefault("exitCode", "?") + ", " + ordinary.tests().size() + " test(s) reported"
                + (tail.isEmpty() ? "" : ", output: " + tail);
    }

    /** The tail of the runs' output: the isolated run's, after the in-process run's where that one ran and said something. */
    static String outputTail(Outcome isolated, Outcome inProcess) {
        String mine = isolated.details().get("outputTail") instanceof String t ? t : "";
        String again = inProcess != null && inProcess.details().get("outputTail") instanceof String t ? t : "";
        return again.isEmpty() ? mine : mine.isEmpty() ? again : again + "\n--- isolated run ---\n" + mine;
    }

    /**
     * An isolated test's verdict under the cross-check (the sidecar README's rule, blind round 10: x23 was correct only
     * where {@code sys.flags.isolated} was set, x43 only in an environment as bare as the worker's): a pass counts only
     * if the in-process run of the same tree passes it too. Code under test that can tell the worker from an ordinary
     * interpreter gains nothing from it: where the two runs disagree the test fails and the run is flagged
     * ({@code grader-aware}, high); a pass with no in-process result (that run broke or timed out) fails, noted (info).
     * Failing isolated stays failing: the in-process run never raises a verdict, so steering it gains nothing either.
     */
    static TestCase crossChecked(VerifierSpec v, TestCase t, TestCase inProcess, boolean ran, List<String> aware, List<String> unconfirmed) {
        boolean skippedOk = v.skippedCountsAsPassed();
        if (!ran || !t.status().counts(skippedOk) || inProcess != null && inProcess.status().counts(skippedOk)) return t;
        // only a verdict the cross-check really reached says "grader-aware": no result, or one its reporter voided
        // (untrusted), is no evidence either way, and is no pass either (AND)
        boolean failed = inProcess != null && inProcess.status() != TestStatus.MISSING && inProcess.status() != TestStatus.UNTRUSTED;
        (failed ? aware : unconfirmed).add(t.id());
        String why = failed ? "passed " + t.integrity() + ", " + inProcess.status().name().toLowerCase(java.util.Locale.ROOT)
                + " in the cross-check run, an interpreter started as a user's (grader-aware)"
                : inProcess != null && inProcess.status() == TestStatus.UNTRUSTED
                ? "passed " + t.integrity() + ", untrusted in the cross-check run (" + inProcess.message() + "): not confirmed, not counted"
                : "passed " + t.integrity() + ", no result in the cross-check run to confirm it";
        return new TestCase(t.id(), TestStatus.FAILED, t.group(), t.durationMs(), why, t.integrity());
    }
}
