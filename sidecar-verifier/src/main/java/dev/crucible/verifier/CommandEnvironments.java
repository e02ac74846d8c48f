package dev.crucible.verifier;

import dev.crucible.verifier.exec.SharedTmp;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.BoxSpec;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The complete environments commands run with: nothing of the sidecar's own leaks into them. With
 * an {@link ExecEnvironment} (the local runtime provisions one per RLEnvironment) setup, the agent
 * and grading get its PATH and variables; without one (the pod's sidecar) the defaults below, with
 * {@code spec.setup.env} added in every phase.
 */
final class CommandEnvironments {
    private CommandEnvironments() {}

    /**
     * HOME in every box: BoxSpec's default, made in each box's own fresh /tmp (private per box). The agent's box
     * (cli's Bubblewrap), a boxed graded command and the oracle's workers (OracleWorkers.AGENT_HOME) all show it.
     */
    static final String BOX_HOME = BoxSpec.of("home", BoxLimits.defaults()).home();

    static Map<String, String> setup(Path workspace, Environment env) {
        return env.execution().map(ExecEnvironment::forSetup).orElseGet(() -> agent(workspace, env));
    }

    /** Agent commands: the execution environment's, else PATH and HOME from here (pyenv/venv selection kept), a UTF-8 locale. */
    static Map<String, String> agent(Path workspace, Environment env) {
        String home = System.getenv().getOrDefault("HOME", workspace.toString());
        if (env.execution().isPresent()) return env.execution().get().forAgent(home);
        Map<String, String> m = agent(workspace);
        m.putAll(setupEnv(env));
        return m;
    }

    static Map<String, String> agent(Path workspace) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        m.put("HOME", System.getenv().getOrDefault("HOME", workspace.toString()));
        m.put("LANG", "C.UTF-8");
        for (String k : List.of("PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV")) if (System.getenv(k) != null) m.put(k, System.getenv(k));
        return m;
    }

    /**
     * Grading: the execution environment's PATH and variables (HOME and TMPDIR in the results
     * folder, only setup-installed pytest plugins); without one, the interpreter resolved at reset
     * first on PATH, no byte code, no user site, no auto-loaded pytest plugins. {@code boxed}: each
     * command runs in a {@link dev.crucible.verifier.sandbox.GradingSandbox} box, and TMPDIR is the box's
     * own /tmp ({@link SharedTmp}) and HOME is {@link #BOX_HOME}, where the agent's box and the oracle's workers have it
     * (a test comparing {@code expanduser("~")} on the trusted side with the code under test's answer in a worker saw two
     * homes: click's test_expand_args). Unboxed (--no-sandbox, a grading container) both stay in the results folder,
     * but for TMPDIR on this host (the overload taking the executor).
     */
    static Map<String, String> grading(Path results, String python, Environment env, dev.crucible.verifier.exec.Executor grader) {
        Map<String, String> m = grading(results, python, env, grader instanceof dev.crucible.verifier.sandbox.GradingSandbox);
        // on this host without a box: TMPDIR a short link to the results' home (SharedTmp#hostTmp); a container or another
        // box has a /tmp of its own, where the link would not be
        if (grader instanceof dev.crucible.verifier.exec.LocalExecutor) {
            try {
                m.put("TMPDIR", SharedTmp.hostTmp(results).toString());
            } catch (java.io.IOException | UnsupportedOperationException e) {
                // the results folder's home stays TMPDIR: long, so a socket under it may not bind
            }
        }
        return m;
    }

    static Map<String, String> grading(Path results, String python, Environment env, boolean boxed) {
        Map<String, String> m;
        if (env.execution().isPresent()) {
            m = env.execution().get().forGrading(results.resolve("home"));
        } else {
            m = new LinkedHashMap<>(setupEnv(env));
            m.putAll(grading(results, python));
        }
        if (boxed) {
            m.put("TMPDIR", SharedTmp.BOX_TMP);
            m.put("HOME", BOX_HOME);
        }
        return m;
    }

    static Map<String, String> grading(Path results, String python) {
        Map<String, String> m = new LinkedHashMap<>();
        String pyDir = python == null ? null : Path.of(python).getParent().toString();
        m.put("PATH", (pyDir == null ? "" : pyDir + ":") + "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        m.put("HOME", results.resolve("home").toString());
        m.put("TMPDIR", results.resolve("home").toString());
        m.put("LANG", "C.UTF-8");
        m.put("PYTHONDONTWRITEBYTECODE", "1");
        m.put("PYTHONNOUSERSITE", "1");
        m.put("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        return m;
    }

    private static Map<String, String> setupEnv(Environment env) {
        return env.spec().setup() == null ? Map.of() : env.spec().setup().env();
    }
}
