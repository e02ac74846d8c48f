package dev.crucible.derive;

import dev.crucible.derive.ExpressionContext.ShellVariable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Derives an RLEnvironment from a GitHub Actions workflow job: its setup script, toolchains, env and
 * test command come from the job's own steps, so a repository with CI gets an install script for free.
 * Pure logic apart from reading the repository through git; used by {@code crucible derive} and by the
 * operator when an RLEnvironment names a workflow in {@code spec.source}.
 */
public final class WorkflowDeriver {
    public static final int DEFAULT_SETUP_TIMEOUT_SECONDS = 1800;
    public static final int DEFAULT_TEST_TIMEOUT_SECONDS = 1800;
    public static final int DEFAULT_LINT_TIMEOUT_SECONDS = 600;

    private final boolean runRepositorySteps;

    public WorkflowDeriver() {
        this(false);
    }

    private WorkflowDeriver(boolean runRepositorySteps) {
        this.runRepositorySteps = runRepositorySteps;
    }

    /**
     * A deriver that may run a needed job's step in an export of the commit to compute a matrix CI computes
     * at run time ({@code fromJSON(needs.…outputs…)}): repository code on this machine, so only where the user
     * asked to derive from that repository (the CLI), never in the operator.
     */
    public static WorkflowDeriver runningRepositorySteps() {
        return new WorkflowDeriver(true);
    }

    /** Derives from the workflow file at {@code commit} (or the working tree when commit is null). */
    public Derivation derive(Path repo, String commit, String workflowPath, String job, Map<String, String> matrix,
            String testStepOverride) throws DerivationException {
        return derive(new DerivationRequest(repo, commit, workflowPath, job, matrix, testStepOverride));
    }

    public Derivation derive(DerivationRequest request) throws DerivationException {
        String file = request.workflowPath();
        if (file == null || file.isBlank()) {
            throw new DerivationException(null, null, 0, "no workflow file given");
        }
        if (request.repo() == null) {
            throw new DerivationException(file, null, 0, "no repository given to read it from");
        }
        String commit = null;
        if (request.commit() != null) {
            try {
                commit = new RepositoryFiles(request.repo(), request.commit()).resolveCommit();
            } catch (IOException e) {
                throw new DerivationException(file, null, 0, "cannot read the workflow: " + e.getMessage());
            }
        }
        RepositoryFiles files = new RepositoryFiles(request.repo(), commit);
        String text;
        try {
            text = files.read(file);
        } catch (IOException e) {
            throw new DerivationException(file, null, 0, "cannot read the workflow: " + e.getMessage());
        }
        if (text == null) {
            throw new DerivationException(file, null, 0, "no such file in " + request.repo()
                    + (commit != null ? " at commit " + commit : ""));
        }
        return derive(request, text, commit, files::readQuietly);
    }

    /**
     * As {@link #derive(DerivationRequest)}, except that a workflow file {@code request.commit()} predates is read at
     * {@code workflowCommit} (a fix commit older than the repository's workflow takes today's); the commit's own
     * files (version files, scripts, package.json) are still read at the commit.
     */
    public Derivation derive(DerivationRequest request, String workflowCommit) throws DerivationException {
        RepositoryFiles files = new RepositoryFiles(request.repo(), request.commit());
        String commit;
        try {
            commit = files.resolveCommit();
        } catch (IOException e) {
            throw new DerivationException(request.workflowPath(), null, 0, "cannot read the repository: " + e.getMessage());
        }
        RepositoryFiles atCommit = new RepositoryFiles(request.repo(), commit);
        if (atCommit.readQuietly(request.workflowPath()) != null) return derive(request);
        String text = new RepositoryFiles(request.repo(), workflowCommit).readQuietly(request.workflowPath());
        if (text == null) return derive(request); // the usual "no such file" error
        return derive(request, text, commit, atCommit::readQuietly);
    }

    /**
     * Derives from workflow text already in hand (the operator may have fetched it itself). Version files
     * named by setup actions are read from the repository's working tree when {@code request.repo()} is set.
     */
    public Derivation deriveFromText(DerivationRequest request, String workflowText) throws DerivationException {
        if (workflowText == null) {
            throw new DerivationException(request.workflowPath(), null, 0, "no workflow text given");
        }
        RepositoryFiles files = request.repo() == null ? null : new RepositoryFiles(request.repo(), null);
        return derive(request, workflowText, request.commit(), path -> files == null ? null : files.readQuietly(path));
    }

    /**
     * The conventional test job ({@link ConventionalTests}) when no workflow tests: derived like a workflow, with
     * a note saying CI runs no tests and why each workflow was passed over ({@code why}).
     */
    static java.util.Optional<Derivation> conventional(Path repo, String commit, List<String> why) throws DerivationException {
        String sha;
        try {
            sha = commit == null ? null : new RepositoryFiles(repo, commit).resolveCommit();
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
        RepositoryFiles files = new RepositoryFiles(repo, sha);
        commit = sha;
        java.util.Optional<ConventionalTests.Choice> c = ConventionalTests.choose(repo, commit, files::readQuietly);
        if (c.isEmpty()) return java.util.Optional.empty();
        DerivationRequest r = new DerivationRequest(repo, commit, ConventionalTests.PATH, null, Map.of(), null);
        Derivation d = new WorkflowDeriver().derive(r, c.get().workflow(), commit, files::readQuietly);
        List<String> notes = new ArrayList<>(d.notes());
        notes.add(0, c.get().note() + (why.isEmpty() ? "" : " (" + String.join("; ", why) + ")"));
        return java.util.Optional.of(new Derivation(d.workflowPath(), d.commit(), d.jobId(), d.jobLine(), d.matrix(),
                d.matrixCombinations(), d.setupScript(), d.toolchains(), d.env(), d.secretEnv(), d.containerImage(),
                d.verifier(), d.lint(), d.steps(), List.copyOf(notes), d.manifest()));
    }

    private Derivation derive(DerivationRequest request, String text, String commit, Function<String, String> readFile)
            throws DerivationException {
        String file = request.workflowPath();
        Workflow workflow = WorkflowParser.parse(file, text);
        List<String> notes = new ArrayList<>();
        WorkflowJob job = JobChooser.choose(workflow, request.job(), notes, readFile);
        ComputedMatrix.StepRunner runner = runRepositorySteps && request.repo() != null
                ? new ProducingSteps(request.repo(), commit) : null;
        job = ComputedMatrix.resolve(text, workflow, job, readFile, runner, notes);
        Map<String, Object> needs = ComputedMatrix.neededOutputs(text, workflow, job, runner, notes);
        try {
            Derivation d = deriveJob(request, workflow, job, commit, readFile, needs, notes);
            return DockerFreeCell.prefer(d, request, job, commit, r -> derive(r, text, commit, readFile));
        } catch (ExpressionEvaluator.SyntaxError e) {
            throw new DerivationException(file, job.id(), job.line(), e.getMessage());
        }
    }

    private Derivation deriveJob(DerivationRequest request, Workflow workflow, WorkflowJob job, String commit,
            Function<String, String> readFile, Map<String, Object> needs, List<String> notes) throws DerivationException {
        String file = workflow.file();
        MatrixChooser.Choice choice = MatrixChooser.choose(file, job, request.matrix(), commit, notes);
        Set<String> userEnv = new LinkedHashSet<>();
        Map<String, String> env = resolveEnv(workflow.env(), new LinkedHashMap<>(), choice.combination(), commit,
                userEnv, notes, "workflow");
        env = resolveEnv(job.env(), env, choice.combination(), commit, userEnv, notes, "job");
        ExpressionContext context = new ExpressionContext(choice.combination(), env, commit).withNeeds(needs);
        jobNotes(job, context, notes);

        String image = job.containerImage() == null ? null
                : ExpressionTemplates.substitute(job.containerImage(), context).text();
        RunDefaults defaults = workflow.defaults().overriddenBy(job.defaults());
        List<PlannedStep> steps = new StepPlanner(file, job, context, env, defaults, readFile).plan();
        ToolInstalls.recognise(steps);
        NeededArtifacts.resolve(workflow, job, steps, commit, readFile, notes);
        SecretSteps.apply(steps, readFile);
        ToolchainPhases.apply(steps);
        StepRoles.Roles roles = StepRoles.assign(file, job, steps, request.testStepOverride());
        if (!roles.lintIsTheVerifier()) {
            SetupPruning.DerivedVerifierInput tests = new SetupPruning.DerivedVerifierInput(roles.verifier());
            SetupPruning.prune(steps, tests);
            ScriptSteps.prune(steps, tests.commandText(), readFile);
            ProjectInstalls.makeEditable(steps);
            ToxFlattening.flatten(roles.verifier(), readFile, notes);
            HatchTestFlattening.flatten(roles.verifier(), readFile, notes);
            HatchTestFlattening.dropUnusedHatch(steps, roles.verifier());
            UvSync.apply(steps, roles.verifier(), readFile, notes);
            UvSync.keepEnvironmentVenv(steps, notes);
            CoverageWrappers.strip(roles.verifier());
            CoverageWrappers.dropUnusedTools(steps, roles.verifier());
            NodeScripts.adjust(roles.verifier(), readFile);
            UnittestSteps.recognise(roles.verifier(), readFile);
            XdistWorkers.apply(env, roles.verifier(), notes);
        }
        SystemPackages.apply(steps);
        steps.stream().filter(p -> p.disposition != Disposition.DROPPED).forEach(p -> userEnv.addAll(p.userEnv));
        noteStaleEnv(steps, notes);
        if (roles.lintIsTheVerifier()) {
            notes.add("the job runs no tests; its lint steps are the verifier");
        }

        Map<String, String> toolchains = toolchains(steps);
        RunnerRust.add(toolchains, readFile, notes);
        Integer jobTimeout = minutes(job.timeoutMinutes(), context);
        DerivedVerifier verifier = VerifierShapes.verifier(roles.lintIsTheVerifier() ? "lint" : "tests",
                roles.verifier(), roles.lintIsTheVerifier(), jobTimeout);
        DerivedVerifier lint = roles.lint().isEmpty() ? null
                : VerifierShapes.verifier("lint", roles.lint(), true, null);
        String setupScript = NodeTools.prepend(ShellScripts.setupScript(steps),
                NodeTools.installs(toolchains, steps, verifier, readFile, notes));
        ImpliedTools.add(toolchains, setupScript, verifier.command(), notes);

        Map<String, String> setupEnv = runnerEnv(env);
        List<String> secretEnv = new ArrayList<>(userEnv);
        if (!secretEnv.isEmpty()) {
            notes.add("secrets are never copied: set " + String.join(", ", secretEnv)
                    + " yourself (spec.setup.secretEnv lists them)");
        }
        if (!toolchains.isEmpty()) {
            notes.add("the setup script expects these toolchains on the machine or image: " + toolchains);
        }
        if (image == null) {
            var pick = ToolchainImages.pick(toolchains, roles.verifier().isEmpty() ? null : roles.verifier().get(0).recognised);
            if (pick.isPresent()) {
                image = pick.get().image();
                notes.add("spec.image " + image + ": the official " + pick.get().toolchain() + " image at CI's version, for a "
                        + "cluster (the job names no container; the local runtime uses this machine's toolchains): "
                        + pick.get().note());
            }
        }
        int setupTimeout = jobTimeout != null ? jobTimeout * 60 : DEFAULT_SETUP_TIMEOUT_SECONDS;
        var manifest = ManifestBuilder.build(request.repo() == null ? Path.of(".") : request.repo(), file, commit,
                job.id(), choice.described(), request.testStepOverride(), image, setupScript, setupTimeout,
                toolchains, setupEnv, secretEnv, verifier, lint);
        return new Derivation(file, commit, job.id(), job.line(), choice.described(), choice.total(), setupScript,
                toolchains, setupEnv, secretEnv, image, verifier, lint,
                steps.stream().map(PlannedStep::report).toList(), notes, manifest);
    }

    /** Toolchains the kept steps ask for (also inside composite actions); the first version asked wins. */
    private static Map<String, String> toolchains(List<PlannedStep> steps) {
        Map<String, String> toolchains = new LinkedHashMap<>();
        for (PlannedStep p : steps) {
            if (p.disposition == Disposition.DROPPED) {
                continue;
            }
            List<ActionMapping.Outcome> asked = new ArrayList<>(p.nestedToolchains);
            if (p.action != null && p.disposition == Disposition.TOOLCHAIN) {
                asked.add(0, p.action);
            }
            for (ActionMapping.Outcome o : asked) {
                String had = toolchains.putIfAbsent(o.toolchain(), o.version());
                if (had != null && !had.equals(o.version())) {
                    p.notes.add("the job already asked for " + o.toolchain() + " " + had + "; kept that");
                }
            }
        }
        return toolchains;
    }

    /**
     * The job's env plus what every GitHub runner sets: tools change behaviour on these (jest leaves
     * watch mode under CI, tox-gh-actions picks the tox environment for the Python version only when
     * GITHUB_ACTIONS is true).
     */
    private static Map<String, String> runnerEnv(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("CI", "true");
        out.put("GITHUB_ACTIONS", "true");
        out.putAll(env);
        return out;
    }

    /** Resolves an env block; entries built from secrets or vars are left for the user. */
    private static Map<String, String> resolveEnv(Map<String, String> raw, Map<String, String> outer,
            Map<String, Object> matrix, String commit, Set<String> userEnv, List<String> notes, String level) {
        Map<String, String> env = new LinkedHashMap<>(outer);
        raw = WholeEnv.resolve(raw, new ExpressionContext(matrix, env, commit), notes, level + " ");
        for (Map.Entry<String, String> e : raw.entrySet()) {
            ExpressionTemplates.Result r = ExpressionTemplates.substitute(e.getValue(),
                    new ExpressionContext(matrix, env, commit));
            if (r.variables().stream().anyMatch(StepPlanner::userProvided)) {
                userEnv.add(e.getKey());
                env.remove(e.getKey());
                notes.add(level + " env " + e.getKey() + " comes from " + String.join(", ", r.variables().stream()
                        .filter(StepPlanner::userProvided).map(ShellVariable::origin).toList()) + ": not copied");
                continue;
            }
            if (!r.unresolved().isEmpty()) {
                notes.add(level + " env " + e.getKey() + ": " + String.join(", ", r.unresolved())
                        + " has no value outside a GitHub run; left empty");
            }
            if (!r.variables().isEmpty()) {
                notes.add(level + " env " + e.getKey() + " is '" + r.text() + "': the runtime must expand "
                        + String.join(", ", r.variables().stream().map(ShellVariable::reference).toList())
                        + " (the workspace or temp directory) when it sets it");
            }
            env.put(e.getKey(), r.text());
        }
        return env;
    }

    /**
     * {@code ${{ env.X }}} is resolved once, from the workflow's env blocks; a step that writes X to
     * $GITHUB_ENV would change it for later steps on GitHub. Say so where that can happen.
     */
    private static void noteStaleEnv(List<PlannedStep> steps, List<String> notes) {
        PlannedStep writer = null;
        for (PlannedStep p : steps) {
            if (writer != null && p.disposition != Disposition.DROPPED && p.step.run() != null
                    && p.step.run().contains("${{ env.")) {
                notes.add("step " + writer.step.number() + " writes $GITHUB_ENV; `${{ env.* }}` in step "
                        + p.step.number() + " was resolved from the workflow's env, not from what it writes");
                return;
            }
            if (writer == null && p.disposition == Disposition.SETUP && p.script != null
                    && p.script.contains("GITHUB_ENV")) {
                writer = p;
            }
        }
    }

    private static void jobNotes(WorkflowJob job, ExpressionContext context, List<String> notes) {
        if (job.ifCondition() != null) {
            Boolean b = ExpressionValues.truthy(ExpressionTemplates.condition(job.ifCondition(), context));
            notes.add("the job has if: `" + job.ifCondition().strip() + "`"
                    + (b == null ? " (depends on how GitHub ran it)" : b ? " (true here)" : " (false here: CI would skip this job)"));
        }
        String runsOn = job.runsOn() == null ? null
                : ExpressionTemplates.substitute(ExpressionValues.text(job.runsOn()), context).text();
        if (runsOn != null && MatrixChooser.NOT_LINUX.matcher(runsOn).matches()) {
            notes.add("the job runs on " + runsOn + " in CI; here it runs on Linux, so OS-specific steps may differ");
        }
        if (job.containerImage() != null) {
            notes.add("the job runs in container " + ExpressionTemplates.substitute(job.containerImage(), context).text()
                    + ": used as spec.image");
        }
        if (!job.services().isEmpty()) {
            notes.add("the job uses service containers " + job.services()
                    + ", which are not provided here: tests that need them will fail until you provide them");
        }
        if (!job.needs().isEmpty()) {
            notes.add("the job needs " + job.needs() + " in CI: artifacts it downloads from them are made in setup by "
                    + "running their steps; outputs it reads are taken from the step that writes them (see the notes above), "
                    + "the rest are reported where they are used");
        }
    }

    private static Integer minutes(String text, ExpressionContext context) {
        if (text == null) {
            return null;
        }
        try {
            return (int) Math.ceil(Double.parseDouble(ExpressionTemplates.substitute(text, context).text().strip()));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
