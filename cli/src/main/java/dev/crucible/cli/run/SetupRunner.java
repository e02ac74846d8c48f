package dev.crucible.cli.run;

import dev.crucible.contract.SpecDefaults;
import dev.crucible.api.v1alpha1.environment.SetupSpec;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Runs {@code spec.setup.script} in the workspace before the episode's reset, so what setup makes is
 * part of the baseline and never a finding. Setup is the environment author's code, not the agent's:
 * it runs outside the sandbox (it may need the network to install dependencies), with the environment's
 * execution environment ({@code env}: its venv first on PATH, GOPATH, CARGO_HOME… in its prefix), so
 * what it installs lands in that prefix, never in this machine's interpreter. Its process tree ends with the CLI
 * ({@link TiedProcessTree}).
 */
final class SetupRunner {
    /** What setup did; {@code exitCode} -1 when it ran past its timeout. */
    record Outcome(boolean ran, int exitCode, boolean timedOut, long elapsedMs) {
        static final Outcome NONE = new Outcome(false, 0, false, 0);

        boolean ok() { return !ran || (exitCode == 0 && !timedOut); }
    }

    private SetupRunner() {}

    /** {@code onStart} gets the setup shell's pid, so Ctrl-C can kill it. */
    static Outcome run(SetupSpec setup, Path workspace, Map<String, String> env, Duration budget, Path log, LongConsumer onStart)
            throws IOException {
        if (setup == null || setup.script == null || setup.script.isBlank()) return Outcome.NONE;
        Duration limit = Duration.ofSeconds(setup.timeoutSeconds == null ? SpecDefaults.SETUP_TIMEOUT_SECONDS : setup.timeoutSeconds);
        if (budget.compareTo(limit) < 0) limit = budget.isNegative() ? Duration.ZERO : budget;
        forgetUserConfig(env.get("HOME"));
        // appended as it comes, after the execution environment's provisioning (venv, toolchains): a setup stopped at its
        // limit (or a run stopped by a batch) shows the step it was in, where written at the end it showed nothing
        ExecResult r;
        try (java.io.OutputStream tee = dev.crucible.files.OutputFolder.append(log)) { // O_NOFOLLOW
            r = new LocalExecutor().runTeeing(new ExecRequest(TiedProcessTree.wrap(dev.crucible.verifier.exec.Shell.argv(setup.script)), workspace, env, true,
                    limit, 1 << 20, null, true), onStart, tee);
            if (r.truncated()) tee.write("\n[output cut at 1 MiB]\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (r.timedOut()) tee.write(("\n[setup stopped at its limit of " + limit.toSeconds() + " s]\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return new Outcome(true, r.exitCode(), r.timedOut(), r.elapsedMs());
    }

    /** User config files a setup step may write ({@code npm config set …}); each attempt starts without them. */
    static final List<String> USER_CONFIG = List.of(".npmrc", ".yarnrc", ".yarnrc.yml");

    /**
     * Setup's HOME is the environment's prefix, shared by its attempts (its caches are worth keeping), while a CI
     * step runs on a fresh runner: a step such as {@code npm config set package-lock false} changed what the next
     * attempt's {@code if [[ "$(npm config get package-lock)" == "true" ]]} chose. Its user config is per attempt.
     */
    static void forgetUserConfig(String home) throws IOException {
        if (home == null) return;
        for (String f : USER_CONFIG) Files.deleteIfExists(Path.of(home, f));
    }
}
