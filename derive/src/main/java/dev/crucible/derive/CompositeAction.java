package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Inlines a local composite action ({@code uses: ./.github/actions/setup}): many repositories keep their
 * install steps there, so following it is what makes their setup script complete. Its run steps are
 * rendered with their inputs resolved, its own {@code uses:} steps are mapped like any other (a
 * setup-python inside becomes a toolchain), and local composites inside it are followed too.
 */
final class CompositeAction {
    private static final int MAX_DEPTH = 4;

    /**
     * @param script     bash for the action's run steps, each in its own subshell; empty when it has none
     * @param toolchains toolchain outcomes of setup actions it uses
     * @param notes      what was dropped or could not be resolved inside it
     * @param userEnv    secrets and vars it needs from the user
     */
    record Expansion(String script, List<ActionMapping.Outcome> toolchains, List<String> notes, Set<String> userEnv) {
    }

    private CompositeAction() {
    }

    /** The expansion, or null when {@code uses} names no readable composite action (a note says why). */
    static Expansion expand(String uses, Map<String, ?> with, ExpressionContext context,
            Function<String, String> readFile, List<String> whyNot) {
        return expand(uses, with, context, readFile, whyNot, 0);
    }

    private static Expansion expand(String uses, Map<String, ?> with, ExpressionContext context,
            Function<String, String> readFile, List<String> whyNot, int depth) {
        String dir = uses.substring(2).replaceAll("/+$", "");
        String file = dir + "/action.yml";
        String text = readFile.apply(file);
        if (text == null) {
            file = dir + "/action.yaml";
            text = readFile.apply(file);
        }
        if (text == null) {
            whyNot.add("no action.yml in " + dir + " at this commit");
            return null;
        }
        try {
            YamlDocument doc = YamlDocument.parse(file, text);
            Map<String, Node> action = doc.mapping(doc.root(), "the action");
            Map<String, Node> runs = doc.optionalMapping(action, "runs", "runs");
            String using = doc.optionalScalar(runs, "using", "runs.using");
            if (!"composite".equals(using)) {
                whyNot.add(dir + " is a " + using + " action, which runs only on GitHub");
                return null;
            }
            Map<String, Object> inputs = inputs(doc, action, with, context);
            ExpressionContext actionContext = context.forAction(inputs, dir);
            Expansion out = new Expansion("", new ArrayList<>(), new ArrayList<>(), new LinkedHashSet<>());
            StringBuilder script = new StringBuilder();
            Node stepsNode = runs.get("steps");
            int number = 0;
            for (Node n : stepsNode == null ? List.<Node>of() : doc.sequence(stepsNode, "runs.steps")) {
                number++;
                step(doc, file, dir, number, doc.mapping(n, "runs.steps[" + number + "]"), YamlDocument.line(n),
                        actionContext, readFile, script, out, depth);
            }
            return new Expansion(script.toString(), out.toolchains(), out.notes(), out.userEnv());
        } catch (DerivationException e) {
            whyNot.add("its action file does not read: " + e.getMessage());
            return null;
        }
    }

    /** Declared inputs from the caller's with: or their defaults; values are text or a secret's ShellVariable. */
    private static Map<String, Object> inputs(YamlDocument doc, Map<String, Node> action, Map<String, ?> with,
            ExpressionContext context) throws DerivationException {
        Map<String, Object> inputs = new LinkedHashMap<>();
        for (Map.Entry<String, Node> e : doc.optionalMapping(action, "inputs", "inputs").entrySet()) {
            Map<String, Node> spec = doc.optionalMapping(Map.of("i", e.getValue()), "i", "inputs." + e.getKey());
            Object value = with.containsKey(e.getKey()) ? with.get(e.getKey())
                    : ExpressionTemplates.substitute(doc.optionalScalar(spec, "default", "default"), context).text();
            inputs.put(e.getKey(), value == null ? "" : value);
        }
        with.forEach(inputs::putIfAbsent);
        return inputs;
    }

    private static void step(YamlDocument doc, String file, String dir, int number, Map<String, Node> step, int line,
            ExpressionContext context, Function<String, String> readFile, StringBuilder script, Expansion out,
            int depth) throws DerivationException {
        String name = doc.optionalScalar(step, "name", "name");
        String where = file + ":" + line + " (" + (name != null ? name : "step " + number) + ")";
        String condition = doc.optionalScalar(step, "if", "if");
        if (condition != null && Boolean.FALSE.equals(ExpressionValues.truthy(
                ExpressionTemplates.condition(condition, context)))) {
            out.notes().add(where + ": skipped, if: `" + condition + "` is false here");
            return;
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : doc.stringMap(step, "env", "env").entrySet()) {
            ExpressionTemplates.Result r = ExpressionTemplates.substitute(e.getValue(), context);
            if (r.variables().stream().anyMatch(StepPlanner::userProvided)) {
                out.userEnv().add(e.getKey());
                out.notes().add(where + ": env " + e.getKey() + " comes from a secret or variable: not copied");
            } else {
                env.put(e.getKey(), r.text());
            }
        }
        String uses = doc.optionalScalar(step, "uses", "uses");
        if (uses != null) {
            Map<String, String> with = new LinkedHashMap<>();
            for (Map.Entry<String, String> w : doc.stringMap(step, "with", "with").entrySet()) {
                ExpressionTemplates.Result r = ExpressionTemplates.substitute(w.getValue(), context);
                if (r.variables().stream().noneMatch(StepPlanner::userProvided)) {
                    with.put(w.getKey(), r.text());
                }
            }
            if (uses.startsWith("./") && depth < MAX_DEPTH) {
                List<String> whyNot = new ArrayList<>();
                Expansion inner = expand(uses, with, context, readFile, whyNot, depth + 1);
                if (inner != null) {
                    script.append(inner.script());
                    out.toolchains().addAll(inner.toolchains());
                    out.notes().addAll(inner.notes());
                    out.userEnv().addAll(inner.userEnv());
                    return;
                }
                out.notes().add(where + ": " + uses + " not followed: " + String.join("; ", whyNot));
                return;
            }
            ActionMapping.Outcome o = ActionMapping.map(uses, with, readFile);
            if (o.disposition() == Disposition.TOOLCHAIN) {
                out.toolchains().add(o);
            } else if (o.disposition() == Disposition.SETUP && o.command() != null) {
                script.append("# ").append(where).append("\n(\n").append(o.command()).append("\n)\n");
            } else {
                out.notes().add(where + ": " + o.reason());
            }
            return;
        }
        String run = doc.optionalScalar(step, "run", "run");
        if (run == null) {
            return;
        }
        ExpressionTemplates.Result r = ExpressionTemplates.substitute(run, context);
        r.variables().stream().filter(StepPlanner::userProvided).forEach(v -> out.userEnv().add(v.name()));
        if (!r.unresolved().isEmpty()) {
            out.notes().add(where + ": " + String.join(", ", r.unresolved()) + " has no local value; left empty");
        }
        String shell = doc.optionalScalar(step, "shell", "shell");
        String template = shell == null ? null : StepPlanner.shellTemplate(shell);
        if (shell != null && template == null && !StepPlanner.isBash(shell)) {
            out.notes().add(where + ": shell " + shell + " cannot run here; left out");
            return;
        }
        PlannedStep p = new PlannedStep(new WorkflowStep(number, line, null, name, null, null, Map.of(), run, line,
                shell, null, Map.of(), null, null));
        String wd = doc.optionalScalar(step, "working-directory", "working-directory");
        p.workingDirectory = wd == null ? null : ExpressionTemplates.substitute(wd, context).text();
        p.env.putAll(env);
        p.pipefail = "bash".equals(shell);
        script.append("# ").append(where).append("\n(\n");
        // Composite run steps find their own files through $GITHUB_ACTION_PATH, as on GitHub.
        script.append("export GITHUB_ACTION_PATH=\"$GITHUB_WORKSPACE/").append(dir).append("\"\n");
        ShellScripts.body(script, p, r.text(), StepPlanner.isBash(shell) && (shell == null || !shell.contains("{0}"))
                ? null : template);
        script.append(")\n");
    }
}
