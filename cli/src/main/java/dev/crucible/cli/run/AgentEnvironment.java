package dev.crucible.cli.run;

import dev.crucible.verifier.toolchain.ExecEnvironment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables setup and agent commands see. With the environment's {@link ExecEnvironment}: its
 * PATH and variables (setup.env included), the same grading gets, with the phase's own HOME.
 * Without one: a small allow-list of this machine's (PATH, locale, the Python toolchain roots),
 * never its credentials, then {@code setup.env}. The agent also gets {@code agent.env} and the
 * CRUCIBLE_* variables a pod's agent gets ({@link #forAttempt}).
 */
final class AgentEnvironment {
    private static final List<String> PASSED = List.of("PATH", "LANG", "LC_ALL", "TZ", "TERM", "PYENV_ROOT", "PYENV_VERSION",
            "VIRTUAL_ENV", "JAVA_HOME", "GOROOT", "CARGO_HOME", "RUSTUP_HOME");

    private AgentEnvironment() {}

    static Map<String, String> agent(ExecEnvironment e, String home) {
        return new LinkedHashMap<>(e.forAgent(home));
    }

    static Map<String, String> base(String home, Map<String, String> setupEnv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : PASSED) if (System.getenv(k) != null) m.put(k, System.getenv(k));
        m.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        m.putIfAbsent("LANG", "C.UTF-8");
        m.put("HOME", home);
        if (setupEnv != null) m.putAll(setupEnv);
        return m;
    }

    /** A local attempt's agent: the environment's variables, {@code agent.env}, then the CRUCIBLE_* ones. */
    static Map<String, String> forAttempt(RunInputs.RolloutDoc doc, int attempt, AttemptDir dir, java.nio.file.Path workspace,
                                          ExecEnvironment execution, String home) {
        var env = doc.environment().spec();
        Map<String, String> m = execution != null ? agent(execution, home)
                : base(home, env.setup == null ? null : env.setup.env);
        var r = doc.spec();
        if (r.agent != null && r.agent.env != null) for (var v : r.agent.env) m.put(v.name, v.value == null ? "" : v.value);
        m.put("CRUCIBLE_TASK", doc.prompt());
        m.put("CRUCIBLE_TASK_FILE", dir.taskFile().toString());
        m.put("CRUCIBLE_WORKSPACE", workspace.toString());
        m.put("CRUCIBLE_ROLLOUT", doc.name());
        m.put("CRUCIBLE_ATTEMPT", Integer.toString(attempt));
        m.put("CRUCIBLE_MODE", "embedded");
        m.put("CRUCIBLE_MAX_DURATION_SECONDS", Long.toString(doc.deadlineSeconds()));
        if (r.limits != null && r.limits.maxTurns != null) m.put("CRUCIBLE_MAX_TURNS", r.limits.maxTurns.toString());
        return m;
    }
}
