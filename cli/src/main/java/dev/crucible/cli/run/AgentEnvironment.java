package dev.crucible.cli.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables setup and agent commands see: a small allow-list of this machine's (PATH, locale,
 * the Python toolchain roots), never its credentials; then the environment's {@code setup.env};
 * for the agent also {@code agent.env} and the CRUCIBLE_* variables a pod's agent gets.
 */
final class AgentEnvironment {
    private static final List<String> PASSED = List.of("PATH", "LANG", "LC_ALL", "TZ", "TERM", "PYENV_ROOT", "PYENV_VERSION",
            "VIRTUAL_ENV", "JAVA_HOME", "GOROOT", "CARGO_HOME", "RUSTUP_HOME");

    private AgentEnvironment() {}

    static Map<String, String> base(String home, Map<String, String> setupEnv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : PASSED) if (System.getenv(k) != null) m.put(k, System.getenv(k));
        m.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        m.putIfAbsent("LANG", "C.UTF-8");
        m.put("HOME", home);
        if (setupEnv != null) m.putAll(setupEnv);
        return m;
    }
}
