package dev.crucible.cli.run;

import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.List;

/**
 * The few lines a person reads at the end of a run: outcome, reward, tests, findings, time, where the details are.
 * Each line goes through {@link Text#visible}: finding paths and evidence are the agent's.
 */
public final class HumanSummary {
    private HumanSummary() {}

    public static List<String> block(RolloutResult r, boolean showAttempt) {
        List<String> l = new ArrayList<>();
        l.add(r.rollout() + (showAttempt ? " #" + r.attempt() : ""));
        l.add("  phase     " + r.phase() + " (" + r.reason() + ")");
        l.add("  reward    " + (r.reward() == null ? "-" : fmt(r.reward()) + "  verdict " + r.verdict()
                + (r.testReward() != null && !r.testReward().equals(r.reward()) ? "  (tests alone: " + fmt(r.testReward()) + ", floored by a finding)" : "")));
        if (r.tests() != null) {
            l.add("  tests     " + r.tests().passed() + " passed, " + r.tests().failed() + " failed"
                    + (r.tests().skipped() > 0 ? ", " + r.tests().skipped() + " skipped" : ""));
        }
        List<Finding> fs = r.hackFindings() == null ? List.of() : r.hackFindings();
        if (fs.isEmpty()) l.add("  findings  none");
        for (int i = 0; i < fs.size(); i++) {
            Finding f = fs.get(i);
            l.add((i == 0 ? "  findings  " : "            ") + f.detector() + " "
                    + Text.shorten(f.path() != null ? f.path() : String.valueOf(f.evidence()), 40));
        }
        if (r.agent() != null) l.add("  agent     " + (r.agent().exitCode() == null ? "stopped" : "exit " + r.agent().exitCode()));
        if (r.restoredFrom() != null) l.add("  restored  from " + r.restoredFrom());
        if (r.snapshots() != null) {
            l.add("  snapshots " + r.snapshots().size() + (r.snapshots().isEmpty() ? ""
                    : " (newest " + r.snapshots().get(r.snapshots().size() - 1).id() + "; crucible restore ID --out DIR branches from one)"));
        }
        l.add("  time      " + String.format("%.1f s", r.timings().totalMs() / 1000.0));
        l.replaceAll(Text::visible);
        return l;
    }

    /** Blocks next to each other, for comparing runs (the demo). */
    public static List<String> sideBySide(List<List<String>> blocks, int width) {
        int rows = blocks.stream().mapToInt(List::size).max().orElse(0);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            StringBuilder sb = new StringBuilder();
            for (int b = 0; b < blocks.size(); b++) {
                String cell = i < blocks.get(b).size() ? blocks.get(b).get(i) : "";
                if (cell.length() > width - 2) cell = cell.substring(0, width - 3) + "…";
                sb.append(b == blocks.size() - 1 ? cell : String.format("%-" + width + "s", cell));
            }
            out.add(sb.toString().stripTrailing());
        }
        return out;
    }

    static String fmt(double d) { return d == Math.rint(d) ? String.format("%.1f", d) : String.format("%.3f", d); }
}
