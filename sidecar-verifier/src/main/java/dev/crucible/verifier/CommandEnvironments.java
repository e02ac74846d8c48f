package dev.crucible.verifier;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The complete environments commands run with: nothing of the sidecar's own leaks into them. */
final class CommandEnvironments {
    private CommandEnvironments() {}

    /** Agent commands: PATH and HOME from here (pyenv/venv selection kept), a UTF-8 locale. */
    static Map<String, String> agent(Path workspace) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        m.put("HOME", System.getenv().getOrDefault("HOME", workspace.toString()));
        m.put("LANG", "C.UTF-8");
        for (String k : List.of("PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV")) if (System.getenv(k) != null) m.put(k, System.getenv(k));
        return m;
    }

    /**
     * Grading: the interpreter resolved at reset first on PATH, HOME and TMPDIR in the results
     * directory, no byte code, no user site, no auto-loaded pytest plugins.
     */
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
}
