package dev.crucible.console.views;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.FindingSummary;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.trace.EventDetail;
import dev.crucible.console.trace.TraceService;
import dev.crucible.trajectory.EventKind;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * "Mark this finding a false alarm": the exact change to the environment's {@code spec.hackPolicy} that would stop it
 * counting, as YAML to paste, and what else in this store the change would touch. It changes nothing: the console has
 * no power over an environment, and a policy change is a person's decision, made in the environment's own file.
 * Two ways, as HackPolicySpec has them: {@code severity: {KEY: info}} (still recorded, no longer a hack: the one
 * offered first) and {@code ignore: [KEY]} (dropped entirely). KEY is {@code detector/rule} when the finding names a
 * rule, else the detector; it must match the CRD's pattern, or no policy key can name it (a 400 saying so).
 */
public final class FalseAlarm {
    /** HackPolicySpec.ignore's pattern: detector or detector/rule. */
    static final Pattern KEY = Pattern.compile("^[a-z0-9-]+(/[a-z0-9-]+)?$");
    static final int MAX_LISTED = 20;

    public record Affected(int findings, int rollouts, List<String> ids) {}

    public record Answer(String id, long seq, String environment, String detector, String rule, String severity, String path,
                         String evidence, String key, String severityYaml, String ignoreYaml, Affected alsoAffected,
                         boolean changesNothing, String note) {}

    public static Answer of(RunStore store, String id, long seq) {
        RolloutSummary r = store.summary(id);
        EventDetail e = TraceService.event(store.folder(id), id, seq);
        if (!EventKind.FINDING.equals(e.kind())) {
            throw ConsoleError.badRequest("event #" + seq + " of rollout '" + id + "' is a " + e.kind() + " event, not a finding: "
                    + "only a finding can be marked a false alarm");
        }
        String detector = str(e.data().get("detector"));
        String rule = str(e.data().get("rule"));
        if (detector == null || !KEY.matcher(detector).matches()) {
            throw ConsoleError.badRequest("finding #" + seq + " names detector '" + detector + "', which no hackPolicy key can name "
                    + "(keys match " + KEY.pattern() + ")");
        }
        String key = rule != null && KEY.matcher(detector + "/" + rule).matches() ? detector + "/" + rule : detector;
        String env = r.environment() == null ? "ENVIRONMENT" : r.environment();
        String head = "# Environment " + env + ": merge into its spec.hackPolicy (the console changed nothing)\n"
                + "# marks finding #" + seq + " of rollout " + id + " a false alarm\n";
        String severityYaml = head + "spec:\n  hackPolicy:\n    severity:\n      " + key + ": info   # still recorded, no longer a hack\n";
        String ignoreYaml = head + "spec:\n  hackPolicy:\n    ignore:\n      - " + key + "   # dropped entirely: not even recorded\n";
        String note = key.equals(detector) && rule != null
                ? "the rule '" + rule + "' cannot be named in a policy key, so the change names the whole detector " + detector
                : null;
        return new Answer(id, seq, r.environment(), detector, rule, str(e.data().get("severity")), str(e.data().get("path")),
                str(e.data().get("evidence")), key, severityYaml, ignoreYaml, affected(store, r.environment(), detector,
                key.contains("/") ? rule : null), true, note);
    }

    /** The findings in this store of the same environment the change would also stop counting. */
    static Affected affected(RunStore store, String environment, String detector, String rule) {
        int findings = 0;
        List<String> ids = new ArrayList<>();
        int rollouts = 0;
        for (RolloutSummary r : store.index().rollouts()) {
            if (environment != null && !environment.equals(r.environment())) continue;
            int n = 0;
            for (FindingSummary f : r.findings()) {
                if (detector.equals(f.detector()) && (rule == null || rule.equals(f.rule()))) n++;
            }
            if (n == 0) continue;
            findings += n;
            rollouts++;
            if (ids.size() < MAX_LISTED) ids.add(r.id());
        }
        return new Affected(findings, rollouts, ids);
    }

    private static String str(Object o) { return o == null ? null : String.valueOf(o); }
}
