package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps setup to what the tests need. A setup step that only builds documentation or distributions (or
 * compiles what the test runner compiles again) is dropped unless a later kept command reads the folder
 * it writes; lint commands inside a test step leave the test command, because a style complaint is not a
 * failing test. Each removal is said in the step's report.
 */
final class SetupPruning {
    private SetupPruning() {
    }

    static void prune(List<PlannedStep> steps, DerivedVerifierInput tests) {
        String testText = tests.commandText();
        for (int i = 0; i < steps.size(); i++) {
            PlannedStep p = steps.get(i);
            if (p.disposition != Disposition.SETUP || p.script == null || p.producesArtifact) {
                continue;
            }
            List<String> lines = CommandClassifier.logicalLines(p.script);
            List<Byproducts.Made> made = new ArrayList<>();
            boolean onlyByproducts = !lines.isEmpty();
            for (String line : lines) {
                Byproducts.Made m = Byproducts.of(line, testText);
                if (m != null) {
                    made.add(m);
                } else if (!Byproducts.installsToolsOnly(line) && !line.matches("(echo|printf|ls|cd|mkdir)(\\s.*)?")) {
                    onlyByproducts = false;
                }
            }
            if (!onlyByproducts || made.isEmpty()) {
                continue;
            }
            String reader = readerOf(steps, i, made, testText);
            String what = made.get(0).what() + " (" + CommandClassifier.logicalLines(p.script).stream()
                    .filter(l -> Byproducts.of(l, testText) != null).findFirst().orElse("") + ")";
            if (reader != null) {
                p.notes.add(what + "; kept because " + reader + " reads " + made.get(0).output());
                continue;
            }
            p.set(Disposition.DROPPED, what + ": the tests do not use its output"
                    + (made.get(0).output() == null ? "" : " (" + made.get(0).output() + ")")
                    + ", so setup skips it");
            dropSmokeTests(steps, i);
        }
        for (PlannedStep p : tests.steps()) {
            dropLintLines(p);
        }
    }

    /**
     * caddy: "Build Caddy" ({@code go build} in ./cmd/caddy, dropped above) and then "Smoke test Caddy" ({@code ./caddy
     * start}, {@code ./caddy stop} there). A later setup step in the same folder whose every line runs the binary a
     * plain {@code go build} leaves there (named for the folder) only tries that binary: it goes with the build.
     */
    private static void dropSmokeTests(List<PlannedStep> steps, int build) {
        PlannedStep b = steps.get(build);
        if (b.workingDirectory == null || !CommandClassifier.logicalLines(b.script).stream()
                .anyMatch(l -> l.matches("go\\s+build(?!.*\\s-o\\b).*"))) {
            return;
        }
        String dir = b.workingDirectory.replaceAll("/+$", "");
        String binary = dir.substring(dir.lastIndexOf('/') + 1);
        for (int j = build + 1; j < steps.size(); j++) {
            PlannedStep later = steps.get(j);
            if (later.disposition != Disposition.SETUP || later.script == null || !dir.equals(
                    later.workingDirectory == null ? null : later.workingDirectory.replaceAll("/+$", ""))) {
                continue;
            }
            List<String> lines = CommandClassifier.logicalLines(later.script);
            if (!lines.isEmpty() && lines.stream().allMatch(l -> l.matches("\\./" + java.util.regex.Pattern.quote(binary) + "(\\s.*)?"))) {
                later.set(Disposition.DROPPED, "runs ./" + binary + ", which the dropped step " + b.step.number()
                        + " would have built: a smoke test of the build, not needed to run the tests");
            }
        }
    }

    /** Which later kept step (or the test command) mentions a folder the step writes; null when none. */
    private static String readerOf(List<PlannedStep> steps, int index, List<Byproducts.Made> made, String testText) {
        for (Byproducts.Made m : made) {
            if (m.output() == null) {
                continue;
            }
            String folder = m.output().replaceAll("/$", "");
            for (int j = index + 1; j < steps.size(); j++) {
                PlannedStep later = steps.get(j);
                boolean kept = later.disposition == Disposition.SETUP || later.disposition == Disposition.TEST;
                String text = later.disposition == Disposition.TEST ? later.commandScript + "\n"
                        + String.join("\n", later.setupLines) : later.script;
                if (kept && text != null && mentions(text, folder)) {
                    return "step " + later.step.number();
                }
            }
            if (mentions(testText, folder)) {
                return "the test command";
            }
        }
        return null;
    }

    private static boolean mentions(String text, String folder) {
        return text != null && text.matches("(?s).*(^|[\\s\"'=/(])(\\./)?" + java.util.regex.Pattern.quote(folder)
                + "([/\\s\"')*]|$).*");
    }

    /**
     * Lint lines in a plain test step (toolz: pytest, then pycodestyle) come out of the test command; the
     * job's lint verifier, if any, still lints.
     */
    private static void dropLintLines(PlannedStep p) {
        if (p.shellTemplate != null || p.commandScript == null || CommandClassifier.isStructured(p.commandScript)) {
            return;
        }
        List<String> lines = CommandClassifier.logicalLines(p.commandScript);
        List<String> kept = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        for (String line : lines) {
            CommandClassifier.Classified c = CommandClassifier.classifyLine(line);
            (c.kind() == CommandKind.LINT ? dropped : kept).add(line);
        }
        if (!dropped.isEmpty() && kept.stream().anyMatch(l -> CommandClassifier.classifyLine(l).kind() == CommandKind.TEST)) {
            p.commandScript = String.join("\n", kept);
            p.notes.add("lint commands left out of the test command (" + String.join("; ", dropped)
                    + "): a style finding is not a failing test");
        }
    }

    /** The test steps and their command text, as the pruner needs them. */
    record DerivedVerifierInput(List<PlannedStep> steps) {
        String commandText() {
            StringBuilder b = new StringBuilder();
            steps.forEach(p -> b.append(p.commandScript).append('\n'));
            return b.toString();
        }
    }
}
