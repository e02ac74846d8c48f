package dev.crucible.derive;

import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Resolves each step of the chosen job for the chosen matrix combination: evaluates {@code if:},
 * substitutes expressions, picks shell and working directory from the step, job and workflow defaults,
 * keeps secrets out, maps {@code uses:} steps and recognises what run steps execute. Roles (setup /
 * test / lint / dropped) for run steps are assigned afterwards by {@link StepRoles}, because they depend
 * on where the tests are.
 */
final class StepPlanner {
    private final String file;
    private final WorkflowJob job;
    private final ExpressionContext jobContext;
    private final Map<String, String> jobEnv;
    private final RunDefaults defaults;
    private final Function<String, String> readFile;
    private final CheckoutPath checkout;

    StepPlanner(String file, WorkflowJob job, ExpressionContext jobContext, Map<String, String> jobEnv,
            RunDefaults defaults, Function<String, String> readFile) {
        this.file = file;
        this.job = job;
        this.jobContext = jobContext;
        this.jobEnv = jobEnv;
        this.defaults = defaults;
        this.readFile = readFile;
        this.checkout = CheckoutPath.of(job);
    }

    List<PlannedStep> plan() throws DerivationException {
        List<PlannedStep> out = new ArrayList<>();
        for (WorkflowStep s : job.steps()) {
            try {
                out.add(plan(s));
            } catch (ExpressionEvaluator.SyntaxError e) {
                throw new DerivationException(file, job.id(), s.line(),
                        "step " + s.number() + " (" + s.label() + "): " + e.getMessage());
            }
        }
        return out;
    }

    private PlannedStep plan(WorkflowStep s) {
        PlannedStep p = new PlannedStep(s);
        if (ExpressionTemplates.hasExpression(s.name())) {
            p.label = ExpressionTemplates.substitute(s.name(), jobContext).text();
        }
        // A step's if: sees the job's env, not the step's own: decide it first, so a skipped step's env
        // (often a publishing token) is never looked at.
        if (s.ifCondition() != null) {
            Object v = ExpressionTemplates.condition(s.ifCondition(), jobContext);
            Boolean b = ExpressionValues.truthy(v);
            if (Boolean.FALSE.equals(b)) {
                p.set(Disposition.DROPPED, "if: `" + s.ifCondition().strip() + "` is false here" + (s.ifCondition().contains("failure()")
                        ? " (it runs only after a failed step)" : ""));
                return p;
            }
            if (b == null) {
                p.notes.add("if: `" + s.ifCondition().strip() + "` depends on how GitHub ran the workflow; "
                        + "kept as if it were true: check it");
            }
        }
        Map<String, String> env = new LinkedHashMap<>(jobEnv);
        ExpressionContext stepEnvContext = jobContext.withEnv(env);
        for (Map.Entry<String, String> e : WholeEnv.resolve(s.env(), stepEnvContext, p.notes, "").entrySet()) {
            ExpressionTemplates.Result r = ExpressionTemplates.substitute(e.getValue(), stepEnvContext);
            if (r.variables().stream().anyMatch(StepPlanner::userProvided)) {
                secrets(p, r);
                p.userEnv.add(e.getKey());
                p.notes.add("env " + e.getKey() + " comes from " + origins(r) + ": not copied; set " + e.getKey()
                        + " through spec.setup.secretEnv");
                continue;
            }
            noteUnresolved(p, "env " + e.getKey(), r);
            p.env.put(e.getKey(), r.text());
            env.put(e.getKey(), r.text());
        }
        ExpressionContext context = jobContext.withEnv(env);
        p.continueOnError = Boolean.TRUE.equals(condition(s.continueOnError(), context, p, "continue-on-error"));
        p.timeoutMinutes = minutes(s.timeoutMinutes(), context);

        if (s.uses() != null) {
            planAction(p, s, context);
        } else {
            planRun(p, s, context);
        }
        return p;
    }

    private void planAction(PlannedStep p, WorkflowStep s, ExpressionContext context) {
        Map<String, String> with = new LinkedHashMap<>();
        // A composite action sees a secret input as the secret itself, so its own env keeps it out too.
        Map<String, Object> compositeWith = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : s.with().entrySet()) {
            ExpressionTemplates.Result r = ExpressionTemplates.substitute(e.getValue(), context);
            if (r.variables().stream().anyMatch(StepPlanner::userProvided)) {
                secrets(p, r);
                p.notes.add("input " + e.getKey() + " comes from " + origins(r) + ": not copied");
                compositeWith.put(e.getKey(), r.variables().stream().filter(StepPlanner::userProvided).findFirst()
                        .orElseThrow());
                continue;
            }
            with.put(e.getKey(), r.text());
            compositeWith.put(e.getKey(), r.text());
        }
        if (s.uses().startsWith("./") && planComposite(p, s, compositeWith, context)) {
            return;
        }
        String cargo = CargoTools.actionsRsCargo(s.uses(), with);
        if (cargo != null) {
            p.script = cargo;
            p.commandScript = cargo;
            p.workingDirectory = rebased(resolve(defaults.workingDirectory(), context, p, "working-directory"));
            p.notes.add(s.uses() + " runs `" + cargo + "`" + (ExpressionValues.truthy(with.get("use-cross")) == Boolean.TRUE
                    ? " (use-cross: cross is not available here; cargo runs it)" : ""));
            classify(p);
            return;
        }
        p.action = ActionMapping.map(s.uses(), with, readFile);
        p.set(p.action.disposition(), p.action.reason());
        if (checkout != null && s.uses().toLowerCase(java.util.Locale.ROOT).startsWith("actions/checkout") && checkout.path().equals(with.get("path"))) {
            p.notes.add("with path: " + checkout.path() + ": the job's steps run above the repository; `cd " + checkout.path()
                    + "`, working-directory " + checkout.path() + "/… and $GITHUB_WORKSPACE/" + checkout.path() + " are the workspace's root here");
        }
        ActionMapping.Outcome uvPython = ActionMapping.uvPython(s.uses(), with);
        if (uvPython != null) {
            p.nestedToolchains.add(uvPython);
        }
        if (p.action.disposition() == Disposition.LINT || p.action.disposition() == Disposition.SETUP) {
            p.kind = p.action.disposition() == Disposition.LINT ? CommandKind.LINT : CommandKind.INSTALL;
            p.commandScript = p.action.command();
            p.script = p.action.command();
            if (p.action.setupCommand() != null) {
                p.setupLines.add(p.action.setupCommand());
            }
            p.workingDirectory = rebased(resolve(defaults.workingDirectory(), context, p, "working-directory"));
            // Decided again by StepRoles, which knows where the tests are.
            p.disposition = null;
        }
    }

    /** Inlines a local composite action; false (with a note) when it cannot be read or is not composite. */
    private boolean planComposite(PlannedStep p, WorkflowStep s, Map<String, Object> with, ExpressionContext context) {
        List<String> whyNot = new ArrayList<>();
        CompositeAction.Expansion e = CompositeAction.expand(s.uses(), with, context, readFile, whyNot);
        if (e == null) {
            p.notes.addAll(whyNot.stream().map(w -> "not followed: " + w).toList());
            return false;
        }
        p.notes.addAll(e.notes());
        p.userEnv.addAll(e.userEnv());
        p.nestedToolchains.addAll(e.toolchains());
        String toolchains = String.join(", ", e.toolchains().stream()
                .map(o -> o.toolchain() + " " + o.version()).toList());
        if (e.script().isBlank()) {
            p.set(e.toolchains().isEmpty() ? Disposition.DROPPED : Disposition.TOOLCHAIN, "local composite action "
                    + s.uses() + (e.toolchains().isEmpty() ? ": nothing in it runs here" : ": needs " + toolchains));
            return true;
        }
        p.script = e.script();
        p.commandScript = p.script;
        p.workingDirectory = null;
        p.reason = "local composite action " + s.uses() + " inlined" + (toolchains.isEmpty() ? "" : "; needs "
                + toolchains);
        classify(p);
        return true;
    }

    private void planRun(PlannedStep p, WorkflowStep s, ExpressionContext context) {
        String shell = s.shell() != null ? s.shell() : defaults.shell();
        shell = shell == null ? null : resolve(shell, context, p, "shell").strip();
        String template = shellTemplate(shell);
        if (template == null && shell != null && !isBash(shell)) {
            p.set(Disposition.DROPPED, "shell: " + shell + " has no Linux equivalent here; port the step to bash "
                    + "if the tests need it");
            return;
        }
        p.shellTemplate = shell == null || isBash(shell) && !shell.contains("{0}") ? null : template;
        p.pipefail = shell != null && shell.equals("bash");
        String wd = s.workingDirectory() != null ? s.workingDirectory() : defaults.workingDirectory();
        p.workingDirectory = wd == null ? null : resolve(wd, context, p, "working-directory");
        boolean fromAbove = checkout != null && checkout.above(p.workingDirectory);
        if (checkout != null) p.workingDirectory = checkout.rebase(p.workingDirectory);

        ExpressionTemplates.Result r = ExpressionTemplates.substitute(s.run(), context);
        for (ShellVariable v : r.variables()) {
            if (userProvided(v)) {
                p.userEnv.add(v.name());
                p.notes.add("uses " + v.origin() + ": written as " + v.reference()
                        + ", which the user provides through spec.setup.secretEnv");
            }
        }
        secrets(p, r);
        noteUnresolved(p, "run", r);
        p.script = UtooCommands.toNpm(checkout == null ? r.text() : checkout.rewrite(r.text(), fromAbove));
        if (!p.script.equals(r.text())) p.notes.add("utoo's `ut` commands run with npm (an npm-compatible client this machine lacks)");
        p.commandScript = p.script;
        if (s.name() == null) {
            p.label = new WorkflowStep(s.number(), s.line(), s.id(), null, null, null, Map.of(), p.script, 0, null,
                    null, Map.of(), null, null).label();
        }
        if (NvmSteps.asToolchain(p)) {
            return;
        }
        classify(p);
    }

    /** Recognises the step's commands; for test and lint steps, splits off leading install lines. */
    private void classify(PlannedStep p) {
        MakeRecipes recipes = new MakeRecipes(readFile, p.workingDirectory);
        List<String> lines = CommandClassifier.logicalLines(p.script);
        CommandKind strongest = CommandKind.OTHER;
        int first = -1;
        List<CommandClassifier.Classified> kinds = new ArrayList<>();
        for (String line : lines) {
            CommandClassifier.Classified c = CommandClassifier.classifyLine(line, recipes);
            kinds.add(c);
            if (rank(c.kind()) > rank(strongest)) {
                strongest = c.kind();
                p.recognised = c.what();
            }
        }
        p.kind = strongest;
        if (strongest != CommandKind.TEST && strongest != CommandKind.LINT) {
            return;
        }
        for (int i = 0; i < kinds.size(); i++) {
            if (kinds.get(i).kind() == strongest) {
                first = i;
                break;
            }
        }
        boolean onlyInstallsBefore = first > 0
                && kinds.subList(0, first).stream().allMatch(k -> k.kind() == CommandKind.INSTALL);
        if (onlyInstallsBefore && p.shellTemplate == null && !CommandClassifier.isStructured(p.script)) {
            p.setupLines.addAll(lines.subList(0, first));
            p.commandScript = String.join("\n", lines.subList(first, lines.size()));
        } else if (strongest == CommandKind.TEST && installsBetweenExportsAndTests(p, lines, kinds)) {
            return;
        } else if (first > 0 && p.shellTemplate == null && !CommandClassifier.isStructured(p.script)) {
            splitInstallsAmongSteps(p, lines, kinds, first);
        }
    }

    private static final java.util.regex.Pattern EXPORT = java.util.regex.Pattern.compile("export\\s+[A-Za-z_][A-Za-z0-9_]*=\\S*");

    /**
     * black's test step: {@code export PYTHONWARNDEFAULTENCODING=1}, {@code pip install -e .[d]}, pytest, {@code pip install
     * -e .[jupyter]}, pytest again. Grading has no network, so an install there fails (pip fetched hatchling's build
     * requirements from the index); every install line goes to setup, in order, and the exports and tests stay. Only
     * for a plain list of commands without cd (whose folder the installs would need) and with nothing else in it.
     */
    private static boolean installsBetweenExportsAndTests(PlannedStep p, List<String> lines, List<CommandClassifier.Classified> kinds) {
        if (p.shellTemplate != null || CommandClassifier.isStructured(p.script)) return false;
        List<String> setup = new ArrayList<>();
        List<String> command = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            CommandKind k = kinds.get(i).kind();
            String line = lines.get(i).strip();
            if (k == CommandKind.INSTALL) setup.add(line);
            else if (k == CommandKind.TEST || EXPORT.matcher(line).matches()) command.add(lines.get(i));
            else return false;
        }
        if (setup.isEmpty()) return false;
        // the exports before an install hold for it in CI too: setup gets them ahead of the installs
        List<String> exports = command.stream().filter(l -> EXPORT.matcher(l.strip()).matches()).toList();
        p.setupLines.addAll(exports);
        p.setupLines.addAll(setup);
        p.commandScript = String.join("\n", command);
        return true;
    }

    private static final java.util.regex.Pattern CD = java.util.regex.Pattern.compile("cd\\s+[^;&|<>`$()]+");

    /**
     * tauri's test step: {@code cd ./packages/cli}, {@code pnpm i --frozen-lockfile}, {@code pnpm build}, {@code pnpm test}.
     * Its install lines need the network, which grading does not have, so they run in setup (inside the folders the
     * step's {@code cd} lines chose); the {@code cd} and build lines stay in the test command, so grading builds the
     * agent's code. Only when every line up to the last install is an install or a plain {@code cd}: a line that
     * could make what an install reads (a generator, a configure) keeps the step as it is.
     */
    private static void splitInstallsAmongSteps(PlannedStep p, List<String> lines, List<CommandClassifier.Classified> kinds, int first) {
        int lastInstall = -1;
        for (int i = 0; i < first; i++) if (kinds.get(i).kind() == CommandKind.INSTALL) lastInstall = i;
        if (lastInstall < 0) return;
        for (int i = 0; i < lastInstall; i++) {
            if (kinds.get(i).kind() != CommandKind.INSTALL && !CD.matcher(lines.get(i).strip()).matches()) return;
        }
        List<String> cds = new ArrayList<>();
        List<String> setup = new ArrayList<>();
        List<String> command = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (i <= lastInstall && kinds.get(i).kind() == CommandKind.INSTALL) {
                setup.add(cds.isEmpty() ? line : "(" + String.join(" && ", cds) + " && " + line + ")");
            } else {
                if (i < lastInstall) cds.add(line);
                command.add(lines.get(i));
            }
        }
        p.setupLines.addAll(setup);
        p.commandScript = String.join("\n", command);
    }

    static int rank(CommandKind k) {
        return switch (k) {
            case TEST -> 4;
            case LINT -> 3;
            case CI_ONLY -> 2;
            case INSTALL -> 1;
            case OTHER -> 0;
        };
    }

    static boolean isBash(String shell) {
        return shell == null || shell.equals("bash") || shell.startsWith("bash ");
    }

    /** The command that runs a script file {0} for a shell, or null when it cannot run here. */
    static String shellTemplate(String shell) {
        if (shell == null || shell.equals("bash")) {
            return null;
        }
        String lower = shell.toLowerCase(Locale.ROOT);
        if (lower.equals("sh")) {
            return "sh -e {0}";
        }
        if (lower.equals("python")) {
            return "python {0}";
        }
        if (lower.equals("pwsh") || lower.equals("powershell") || lower.equals("cmd")) {
            return null;
        }
        return shell.contains("{0}") ? shell : shell + " {0}";
    }

    private String rebased(String workingDirectory) {
        return checkout == null ? workingDirectory : checkout.rebase(workingDirectory);
    }

    private String resolve(String text, ExpressionContext context, PlannedStep p, String what) {
        ExpressionTemplates.Result r = ExpressionTemplates.substitute(text, context);
        noteUnresolved(p, what, r);
        return r.text();
    }

    private static Object condition(String text, ExpressionContext context, PlannedStep p, String what) {
        if (text == null) {
            return false;
        }
        Object v = ExpressionTemplates.condition(text, context);
        if (v instanceof Unknown) {
            p.notes.add(what + ": `" + text + "` cannot be known locally; taken as false");
            return false;
        }
        return ExpressionValues.truthy(v);
    }

    private static Integer minutes(String text, ExpressionContext context) {
        if (text == null) {
            return null;
        }
        String v = ExpressionTemplates.substitute(text, context).text().strip();
        try {
            return (int) Math.ceil(Double.parseDouble(v));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static boolean userProvided(ShellVariable v) {
        return v.secret() || v.origin().startsWith("vars.");
    }

    private static void secrets(PlannedStep p, ExpressionTemplates.Result r) {
        r.variables().stream().filter(ShellVariable::secret).forEach(v -> p.secretRefs.add(v.origin()));
    }

    private static String origins(ExpressionTemplates.Result r) {
        return String.join(", ", r.variables().stream().filter(StepPlanner::userProvided)
                .map(ShellVariable::origin).toList());
    }

    private static void noteUnresolved(PlannedStep p, String what, ExpressionTemplates.Result r) {
        if (!r.unresolved().isEmpty()) {
            p.notes.add(what + ": " + String.join(", ", r.unresolved())
                    + " has no value outside a GitHub run; replaced with empty text");
        }
    }
}
