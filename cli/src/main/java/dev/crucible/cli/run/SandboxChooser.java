package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.pristine.SetupDependencies;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.BoxSpec;
import dev.crucible.verifier.sandbox.BoxUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Picks the sandbox for one attempt: the shared box when bwrap works here, else unconfined with the reason. */
final class SandboxChooser {
    private SandboxChooser() {}

    /**
     * The box shows the workspace (protected paths read-only), the task file and the files the agent
     * command names; never the attempt folder, the manifest's folder or the state folder.
     */
    static Sandbox choose(boolean wanted, EnvironmentDoc env, LimitsSpec rolloutLimits, Path workspace, AttemptDir dir, Path home,
                          List<String> agentCommand, long deadlineSeconds, String label) throws IOException {
        return choose(wanted, env, rolloutLimits, workspace, dir, home, agentCommand, deadlineSeconds, label, List.of());
    }

    /** {@code toolchains}: the execution environment's prefix and toolchain folders, shown read-only (see ExecEnvironment#readOnly). */
    static Sandbox choose(boolean wanted, EnvironmentDoc env, LimitsSpec rolloutLimits, Path workspace, AttemptDir dir, Path home,
                          List<String> agentCommand, long deadlineSeconds, String label, List<Path> toolchains) throws IOException {
        return choose(wanted, env, rolloutLimits, workspace, dir, home, agentCommand, deadlineSeconds, label, toolchains, null);
    }

    /** {@code scratch}: the attempt's disk (its limit, and the volume the workspace lies on); null: the environment's own limit, polled. */
    static Sandbox choose(boolean wanted, EnvironmentDoc env, LimitsSpec rolloutLimits, Path workspace, AttemptDir dir, Path home,
                          List<String> agentCommand, long deadlineSeconds, String label, List<Path> toolchains, AttemptScratch scratch)
            throws IOException {
        if (!wanted) return new Unconfined(home, "--no-sandbox was given");
        BoxLimits limits = limits(env, rolloutLimits, deadlineSeconds);
        if (scratch != null) limits = limits.withDisk(scratch.bytes());
        Map<Path, Path> files = commandFiles(agentCommand, workspace);
        if (Files.isRegularFile(dir.taskFile())) files.put(dir.taskFile(), dir.taskFile());
        BoxSpec spec = BoxSpec.of(label, limits).withVolume(scratch == null ? null : scratch.volume()).withWritable(workspace)
                .withReadOnly(Bubblewrap.protectedTargets(workspace, ProtectedPaths.of(env.verifierEnv().verifier(), env.verifierEnv().spec().hackPolicy().protectsDefaults())))
                // node_modules as setup (which runs after this) leaves it: bound read-only when it is a real folder then
                .withReadOnly(toolchains).withReadOnly(SetupDependencies.DIRS.stream().map(workspace::resolve).toList())
                .withScratch(SetupDependencies.scratch(SetupDependencies.DIRS.stream().map(workspace::resolve).toList()))
                .withFiles(files).withHome(Bubblewrap.HOME);
        try {
            return new Bubblewrap(Box.open(spec), workspace);
        } catch (BoxUnavailableException e) {
            return new Unconfined(home, e.getMessage());
        }
    }

    /**
     * The agent's sandbox for one attempt, its home made, and what it and the grading box will be said on the
     * terminal: a snapshot-able embedded run gets plain namespaces (CRIU cannot dump a bwrap box), any other
     * run {@link #choose}'s box.
     */
    static Sandbox forAttempt(RunInputs.RolloutDoc doc, AttemptOptions opt, int attempt, AttemptDir dir, Path workspace,
                              dev.crucible.verifier.toolchain.ExecEnvironment execution, Progress progress) throws IOException {
        return forAttempt(doc, opt, attempt, dir, workspace, execution, progress, null);
    }

    /** As above, the box's disk held by {@code scratch} (null: the environment's own limit, polled), and said in a line of its own. */
    static Sandbox forAttempt(RunInputs.RolloutDoc doc, AttemptOptions opt, int attempt, AttemptDir dir, Path workspace,
                              dev.crucible.verifier.toolchain.ExecEnvironment execution, Progress progress, AttemptScratch scratch)
            throws IOException {
        Path home = dir.root().resolve("home");
        Sandbox sandbox = opt.snapshots() != null && !doc.interactive()
                ? new Namespaces(home, dir.root().resolve(LocalRollout.AGENT_EXIT))
                : choose(opt.sandbox(), doc.environment(), doc.spec().limits, workspace, dir, home,
                        doc.spec().agent == null ? null : doc.spec().agent.command, doc.deadlineSeconds(), "agent-" + attempt, execution.readOnly(),
                        scratch);
        if (sandbox instanceof Unconfined u) Files.createDirectories(u.homeDir());
        if (sandbox instanceof Namespaces n) Files.createDirectories(Path.of(n.home()));
        progress.info(sandbox.describe());
        if (scratch != null) {
            progress.info(scratch.describe());
            if (!doc.interactive()) scratch.holdAgentLog();
        }
        progress.info(!opt.sandbox() ? "WARNING: grading runs unconfined (--no-sandbox): graded code can reach everything this user can"
                : Box.availability().ok()
                ? "grading: each graded command in a fresh box (grading tree read-only to Python runners, writable but for the grader's files to others; results writable; nothing else of the host)"
                : "grading will be refused: no box can be made here (" + Box.availability().problem()
                        + "); pass --no-sandbox to grade unconfined");
        return sandbox;
    }

    /** The environment's {@code spec.resources} as box limits; CPU time is the CPU share over {@code wallSeconds}. */
    static BoxLimits limits(EnvironmentDoc env, long wallSeconds) {
        ResourcesSpec r = env.spec().resources;
        return r == null ? BoxLimits.defaults() : BoxLimits.of(r.cpu, r.memory, r.ephemeralStorage, wallSeconds);
    }

    /** As {@link #limits(EnvironmentDoc, long)}, with the rollout's own {@code limits.maxProcesses} and {@code maxCpuSeconds} on top. */
    static BoxLimits limits(EnvironmentDoc env, LimitsSpec rollout, long wallSeconds) {
        BoxLimits l = limits(env, wallSeconds);
        if (rollout == null) return l;
        if (rollout.maxProcesses != null) l = l.withPids(rollout.maxProcesses);
        if (rollout.maxCpuSeconds != null) l = l.withCpuSeconds(rollout.maxCpuSeconds);
        return l;
    }

    /**
     * Files an agent command names ({@code sh /abs/agent.sh}, {@code sh ../agents/honest.sh}),
     * resolved against the workspace like the shell would: source (links followed) → the path the
     * agent uses. Only regular files outside the workspace; never a folder, so the manifest's folder
     * stays out of the box.
     */
    static Map<Path, Path> commandFiles(List<String> command, Path workspace) {
        Map<Path, Path> out = new LinkedHashMap<>();
        if (command == null) return out;
        for (String arg : command) {
            for (String token : arg.split("[\\s'\"=;|&()<>]+")) {
                if (token.isEmpty() || !token.contains("/")) continue;
                Path as = (token.startsWith("/") ? Path.of(token) : workspace.resolve(token)).normalize();
                if (as.startsWith(workspace) || !Files.isRegularFile(as)) continue;
                try {
                    out.putIfAbsent(as.toRealPath(), as);
                } catch (IOException e) {
                    // vanished: nothing to show
                }
            }
        }
        return out;
    }
}
