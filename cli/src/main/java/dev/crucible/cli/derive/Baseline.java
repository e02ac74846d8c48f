package dev.crucible.cli.derive;

import dev.crucible.verifier.config.ExcludedTest;
import dev.crucible.verifier.grade.OfflineFailures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The baseline at the task commit: the derived environment run twice through the real local runtime
 * ({@code crucible run}: setup, a no-op agent in the agent's box, grading in the grading sandbox), every
 * test's result recorded. Tests that pass both times become passToPass; a test that fails there (the
 * network, drift in what setup installs), passes in one run only (flaky) or is collected under another id in each run
 * ({@link UnstableIds}) is excluded, with its reason,
 * so a no-op agent at the task commit reaches reward 1 by construction. A run without per-test results
 * (graded as one execution) gets no lists; the environment is unusable when setup or grading fails there, and when a
 * no-op run has a counted finding (see {@link #flagged}).
 */
final class Baseline {
    /** Statuses that count as passing in a baseline run (skipped tests are neither listed nor excluded). */
    private static final Set<String> PASSING = Set.of("passed", "xpassed");
    private static final Set<String> NEUTRAL = Set.of("skipped", "xfailed");

    /**
     * What the baseline found.
     *
     * @param unusable   why the environment cannot be used as derived (null when it can)
     * @param perTest    whether the runs reported tests one by one (false: one execution)
     * @param passToPass tests that passed in both runs
     * @param excluded   tests left out, each with its reason
     * @param tests      how many tests the first run reported
     * @param seconds    wall time of both runs
     */
    record Result(String unusable, boolean perTest, List<String> passToPass, List<ExcludedTest> excluded, int tests, double seconds) {
        boolean usable() { return unusable == null; }
    }

    private Baseline() {}

    /** Runs {@code manifest} twice with a no-op agent, results under {@code runs}. */
    static Result run(Path manifest, Path runs) throws IOException {
        LocalRuns.Outcome first = LocalRuns.run(manifest, "true", runs.resolve("baseline-1"));
        if (!first.counted().isEmpty()) return flagged(1, first, first.seconds());
        if (first.tests().isEmpty()) {
            return new Result(phase(1, first) + "the baseline run at the task commit reported no tests (" + first.phase() + "): " + first.message(),
                    false, List.of(), List.of(), 0, first.seconds());
        }
        if (first.tests().keySet().equals(Set.of("execution"))) {
            String why = first.passed("execution") ? null
                    : phase(1, first) + "the test command fails at the task commit with a no-op agent, and it reports no per-test results: " + first.message();
            return new Result(why, false, List.of(), List.of(), 1, first.seconds());
        }
        if (!phase(1, first).isEmpty()) { // stopped at grading's limit: what it reported is not the suite, and a second run would stop too
            return new Result(phase(1, first) + first.tests().size() + " tests reported before the limit: " + first.message(),
                    true, List.of(), List.of(), first.tests().size(), first.seconds());
        }
        if (first.tests().values().stream().noneMatch(PASSING::contains)) {
            return compare(first, first); // nothing can become passToPass: a second run would not change that
        }
        LocalRuns.Outcome second = LocalRuns.run(manifest, "true", runs.resolve("baseline-2"));
        if (!second.counted().isEmpty()) return flagged(2, second, first.seconds() + second.seconds());
        if (second.tests().isEmpty() && !phase(2, second).isEmpty()) { // not "flaky": it never graded
            return new Result(phase(2, second) + "the second baseline run reported no tests (" + second.phase() + "): " + second.message(),
                    true, List.of(), List.of(), first.tests().size(), first.seconds() + second.seconds());
        }
        return compare(first, second);
    }

    /**
     * A no-op run with a counted finding: unusable, not usable with a warning. A finding counted at the task commit with
     * no agent floors every agent's reward there (phase Hacked, reward 0: psf/requests' own suite, probemeasure), so the
     * environment cannot tell honest work from a hack: a broken environment, or a false alarm of the grader, which the
     * row names so that it is fixed where it lies. The second run is not needed to know that.
     */
    private static Result flagged(int n, LocalRuns.Outcome o, double seconds) {
        List<String> c = o.counted();
        return new Result("baseline run " + n + " at the task commit with a no-op agent ended " + o.phase() + " with "
                + c.size() + " counted finding" + (c.size() == 1 ? "" : "s") + " (every agent's reward would be floored): "
                + String.join("; ", c.subList(0, Math.min(3, c.size()))) + (c.size() > 3 ? "; …" : ""),
                !o.tests().keySet().equals(Set.of("execution")), List.of(), List.of(), o.tests().size(), seconds);
    }

    /** "baseline run N: setup timed out (...); " when the run stopped at a phase's limit, else nothing. */
    private static String phase(int n, LocalRuns.Outcome o) {
        String stop = PhaseLimits.stopped(o.message());
        for (String m : o.messages().values()) if (stop == null) stop = PhaseLimits.stopped(m);
        return stop == null ? "" : "baseline run " + n + ": " + stop + "; ";
    }

    /** passToPass and exclusions from two runs at the same commit. */
    static Result compare(LocalRuns.Outcome first, LocalRuns.Outcome second) {
        List<String> passToPass = new ArrayList<>();
        List<ExcludedTest> excluded = new ArrayList<>();
        Set<String> unstable = UnstableIds.between(first.tests(), second.tests());
        for (Map.Entry<String, String> t : first.tests().entrySet()) {
            String id = t.getKey();
            String a = t.getValue();
            String b = second.tests().get(id);
            boolean passA = PASSING.contains(a);
            boolean passB = b != null && PASSING.contains(b);
            if (unstable.contains(id)) {
                excluded.add(new ExcludedTest(id, UnstableIds.reason(id)));
            } else if (passA && passB) {
                passToPass.add(id);
            } else if (passA || passB) {
                excluded.add(new ExcludedTest(id, "flaky at the task commit: " + a + " in the first baseline run, "
                        + (b == null ? "not reported" : b) + " in the second"));
            } else if (inProcessOnly(a, first.messages().get(id))) {
                excluded.add(new ExcludedTest(id, IN_PROCESS + inProcessWhy(first.messages().get(id))));
            } else if (!NEUTRAL.contains(a)) {
                String msg = first.messages().get(id);
                String reason = OfflineFailures.networkCause(msg).map(l -> "fails at the task commit without network: " + l)
                        .orElse("fails at the task commit with a no-op agent (" + a + ")" + firstLine(msg));
                excluded.add(new ExcludedTest(id, reason));
            }
        }
        double seconds = first.seconds() + (second == first ? 0 : second.seconds());
        long inProcess = excluded.stream().filter(e -> e.reason().startsWith(IN_PROCESS)).count();
        String unusable = passToPass.isEmpty() ? "no test passes at the task commit in both baseline runs ("
                + first.tests().size() + " reported, " + excluded.size() + " excluded"
                + (inProcess > 0 ? ", " + inProcess + " of them passing only in-process" : "") + ")" : null;
        return new Result(unusable, true, passToPass, excluded, first.tests().size(), seconds);
    }

    /**
     * A pass the isolated oracle could not split (a test patching what the tree's process holds, one past its round-trip
     * budget): graded in-process, beside the code under test, which could forge it; the grader reports it UNTRUSTED and
     * counts it only where the environment says {@code spec.verifier.inProcessVerdicts: trusted} (sidecar-verifier
     * README). At the task commit it is no failure: it is excluded with that reason, and the report counts them.
     */
    static final String IN_PROCESS = "passes only in-process at the task commit, not counted while spec.verifier.inProcessVerdicts is untrusted";

    static boolean inProcessOnly(String status, String message) {
        return "untrusted".equals(status) && message != null && message.startsWith("passed in-process");
    }

    /** ": WHY" of "passed in-process (WHY), beside the code under test, …". */
    private static String inProcessWhy(String message) {
        int open = message.indexOf('('), close = message.indexOf("), beside");
        return open > 0 && close > open ? " (" + message.substring(open + 1, close) + ")" : "";
    }

    /** How many tests the baseline excluded as passing only in-process. */
    static long inProcessOnly(Result r) {
        return r.excluded().stream().filter(e -> e.reason().startsWith(IN_PROCESS)).count();
    }

    /** The line of a failure that says most: pytest's first {@code E} line, else one naming an error, else the last. */
    static String firstLine(String s) {
        if (s == null || s.isBlank()) return "";
        List<String> lines = s.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        String l = lines.stream().filter(x -> x.startsWith("E ")).map(x -> x.substring(1).strip()).findFirst()
                .or(() -> lines.stream().filter(x -> x.matches("(?i).*(error|panicked|assert|expected|fail).*")).findFirst())
                .orElse(lines.get(lines.size() - 1));
        return ": " + (l.length() > 200 ? l.substring(0, 200) + "…" : l);
    }

    /** The baseline as the report's {@code baseline} object. */
    static Map<String, Object> json(Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("usable", r.usable());
        if (!r.usable()) m.put("unusable", r.unusable());
        m.put("perTest", r.perTest());
        if (!r.perTest()) m.put("note", "no per-test results: the test command is graded as one execution");
        m.put("tests", r.tests());
        m.put("passToPass", r.passToPass().size());
        m.put("inProcessOnly", inProcessOnly(r));
        m.put("excluded", r.excluded().stream().map(e -> Map.of("id", e.id(), "reason", e.reason())).toList());
        m.put("seconds", Math.round(r.seconds() * 10) / 10.0);
        return m;
    }
}
