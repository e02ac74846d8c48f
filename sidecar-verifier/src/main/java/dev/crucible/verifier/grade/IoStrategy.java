package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.grade.shell.ShellQuote;
import dev.crucible.verifier.config.IoCase;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * stdin/stdout matching (APPS, CodeContests): each case runs the command with its args and stdin;
 * outputs match after normalising line endings and trailing whitespace, as those judges do.
 */
public final class IoStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        ExecResult build = ctx.build(v.buildCommand(), Duration.ofSeconds(v.timeoutOrDefault()));
        if (build != null && !build.ok()) return BuildFailure.outcome("io", v, build);
        List<TestCase> tests = new ArrayList<>();
        List<Map<String, Object>> cases = new ArrayList<>();
        int passed = 0;
        boolean crashed = false;
        long ms = 0;
        for (int i = 0; i < v.ioCases().size(); i++) {
            IoCase c = v.ioCases().get(i);
            String name = c.name() == null ? "case-" + i : c.name();
            StringBuilder cmd = new StringBuilder(v.command());
            for (String a : c.args()) cmd.append(' ').append(ShellQuote.quote(a));
            int seconds = c.timeoutSeconds() != null ? c.timeoutSeconds() : Math.min(v.timeoutOrDefault(), 10);
            ExecResult r = ctx.shell(cmd.toString(), Duration.ofSeconds(seconds), c.stdin());
            ms += r.elapsedMs();
            boolean ok = r.exitCode() == 0 && !r.timedOut() && normalise(r.stdout()).equals(normalise(c.expectedStdout()));
            if (ok) passed++;
            if (!r.ok()) crashed = true;
            String msg = ok ? null : r.timedOut() ? "timed out after " + seconds + "s"
                    : r.exitCode() != 0 ? "exit code " + r.exitCode() + ": " + Tail.of(r.stderr()) : "output differs";
            tests.add(new TestCase(name, ok ? TestStatus.PASSED : r.ok() ? TestStatus.FAILED : TestStatus.ERROR, "other", r.elapsedMs(), msg));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", name);
            d.put("passed", ok);
            d.put("expected", c.expectedStdout());
            d.put("actual", r.truncated() ? r.stdout() + "…(truncated)" : r.stdout());
            d.put("exitCode", r.exitCode());
            cases.add(d);
        }
        int total = v.ioCases().size();
        Category cat = passed == total ? Category.PASSED : crashed ? Category.RUNTIME_ERROR : Category.TESTS_FAILED;
        return new Outcome("io", RewardFormula.reward(v.mode(), cat, passed, total), RewardFormula.verdict(cat), cat.label,
                passed + "/" + total + " cases matched", total == 0 ? 0.0 : (double) passed / total, tests, Map.of("cases", cases), ms);
    }

    static String normalise(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder();
        for (String line : s.replace("\r\n", "\n").split("\n", -1)) b.append(line.stripTrailing()).append('\n');
        return b.toString().strip();
    }
}
