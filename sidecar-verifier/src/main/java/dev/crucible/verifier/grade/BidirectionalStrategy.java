package dev.crucible.verifier.grade;

import dev.crucible.contract.RewardMode;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.grade.shell.ShellQuote;
import dev.crucible.verifier.config.Bidirectional;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CURE: n solutions × m tests → a pass/fail matrix. Ground-truth tests decide which solutions are
 * correct; a solution's code reward is the share of ground-truth tests it passes; a generated test
 * earns +1 per solution it judges rightly (passes a correct one, fails an incorrect one) and -1
 * otherwise, averaged. The verifier's reward is the mean code reward (binary: every solution correct).
 */
public final class BidirectionalStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        Bidirectional b = v.bidirectional();
        Duration timeout = Duration.ofSeconds(Math.min(v.timeoutOrDefault(), 60));
        List<String> gt = b.groundTruthTests().isEmpty() ? b.tests() : b.groundTruthTests();
        List<String> generated = b.tests().stream().filter(t -> !b.groundTruthTests().contains(t)).toList();
        List<String> columns = new ArrayList<>(gt);
        generated.stream().filter(t -> !columns.contains(t)).forEach(columns::add);
        int n = b.solutions().size();
        boolean[][] m = new boolean[n][columns.size()];
        long ms = 0;
        List<TestCase> cases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < columns.size(); j++) {
                String cmd = b.command()
                        .replace("{solution}", ShellQuote.quote(ctx.root().resolve(b.solutions().get(i)).toString()))
                        .replace("{test}", ShellQuote.quote(ctx.root().resolve(columns.get(j)).toString()));
                ExecResult r = ctx.shell(cmd, timeout, null);
                ms += r.elapsedMs();
                m[i][j] = r.ok();
                cases.add(new TestCase(b.solutions().get(i) + "×" + columns.get(j), r.ok() ? TestStatus.PASSED : TestStatus.FAILED,
                        gt.contains(columns.get(j)) ? "groundTruth" : "generated", r.elapsedMs(), null));
            }
        }
        boolean[] correct = new boolean[n];
        List<Double> codeRewards = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int ok = 0;
            for (int j = 0; j < gt.size(); j++) if (m[i][j]) ok++;
            correct[i] = ok == gt.size();
            codeRewards.add(gt.isEmpty() ? 0.0 : (double) ok / gt.size());
        }
        Map<String, Double> testRewards = new LinkedHashMap<>();
        for (int j = gt.size(); j < columns.size(); j++) {
            double s = 0;
            for (int i = 0; i < n; i++) s += (correct[i] == m[i][j]) ? 1 : -1;
            testRewards.put(columns.get(j), n == 0 ? 0.0 : s / n);
        }
        List<List<Integer>> matrix = new ArrayList<>();
        for (boolean[] row : m) {
            List<Integer> r = new ArrayList<>();
            for (boolean x : row) r.add(x ? 1 : 0);
            matrix.add(r);
        }
        double mean = codeRewards.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        boolean all = n > 0 && codeRewards.stream().allMatch(r -> r == 1.0);
        Category cat = all ? Category.PASSED : Category.TESTS_FAILED;
        double reward = switch (v.mode()) {
            case BINARY -> all ? 1.0 : 0.0;
            case CODERL -> cat.codeRl;
            case FRACTION, WEIGHTED -> mean;
        };
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("solutions", b.solutions());
        details.put("tests", columns);
        details.put("matrix", matrix);
        List<Boolean> correctList = new ArrayList<>();
        for (boolean c : correct) correctList.add(c);
        details.put("correctSolutions", correctList);
        details.put("codeRewards", codeRewards);
        details.put("testRewards", testRewards);
        return new Outcome("bidirectional", reward, RewardFormula.verdict(all), cat.label, null, mean, cases, details, ms);
    }
}
