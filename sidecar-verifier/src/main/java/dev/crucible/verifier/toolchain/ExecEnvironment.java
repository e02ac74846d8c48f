package dev.crucible.verifier.toolchain;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one execution environment of an RLEnvironment: the PATH, the variables (setup.env included)
 * and the toolchains that setup, the agent and grading all run with. Dependencies live in the
 * environment's own {@code prefix} (a per-environment cache folder, see {@link ExecEnvironments}):
 * a venv for Python, GOPATH/GOCACHE, CARGO_HOME, an npm prefix; the project's node_modules stay in
 * its tree. Only setup writes the prefix; the agent's box and grading's box show it read-only, so
 * neither can plant a plugin, a {@code .pth} or a sitecustomize there.
 *
 * <p>HOME differs by phase only in where it is: setup's is {@code prefix/home}; the agent's and
 * grading's are fresh writable folders of their box. What setup installs is found through the
 * variables above (all inside the prefix), never through HOME.
 *
 * @param path          PATH entries, first first (the same for every phase; a box drops what it cannot show)
 * @param vars          the variables every phase gets (PATH and HOME apart)
 * @param roots         folders outside the system's that the toolchains need: shown read-only in boxes
 * @param siteDirs      the venv's Python site folders (where setup-installed pytest plugins are found)
 * @param pytestPlugins the pytest11 entry points installed at setup ("name=module"): the only plugins grading loads
 */
public record ExecEnvironment(String name, String key, Path prefix, Path venv, List<String> path, Map<String, String> vars,
                              List<ToolchainResolver.Choice> toolchains, List<String> warnings, List<Path> roots,
                              List<Path> siteDirs, List<String> pytestPlugins) {
    public ExecEnvironment {
        path = List.copyOf(path);
        vars = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(vars));
        toolchains = List.copyOf(toolchains);
        warnings = List.copyOf(warnings);
        roots = List.copyOf(roots);
        siteDirs = List.copyOf(siteDirs);
        pytestPlugins = List.copyOf(pytestPlugins);
    }

    /** The file in the prefix that records it (written after setup). */
    public Path recordFile() { return prefix.resolve("environment.json"); }

    public Path setupHome() { return prefix.resolve("home"); }

    /** Setup: HOME in the prefix; pytest's plugin autoload left as it is (setup may run anything it installs). */
    public Map<String, String> forSetup() {
        Map<String, String> m = common();
        m.put("HOME", setupHome().toString());
        // The workspace belongs to the agent's box uid while setup runs as the launcher: git would refuse it
        // as "dubious ownership" (fatal, exit 128) in a step such as `go mod tidy && git status -s`.
        if (!m.containsKey("GIT_CONFIG_COUNT")) {
            m.put("GIT_CONFIG_COUNT", "1");
            m.put("GIT_CONFIG_KEY_0", "safe.directory");
            m.put("GIT_CONFIG_VALUE_0", "*");
        }
        return m;
    }

    /**
     * The agent: its box's HOME; pytest loads the setup-time plugins and nothing else, as in grading. Go
     * writes its build cache on every build and the prefix's is read-only here: the agent's is its own
     * (empty: its first build compiles what it uses).
     */
    public Map<String, String> forAgent(String home) {
        Map<String, String> m = common();
        m.put("HOME", home);
        if (m.containsKey("GOCACHE")) m.put("GOCACHE", home + "/.cache/go-build");
        m.putIfAbsent("CARGO_NET_OFFLINE", "true"); // no network in the box: cargo uses what setup fetched
        PythonTools.afterSetup(m, home);
        pytestPluginVars(m);
        return m;
    }

    /**
     * Grading: HOME and TMPDIR in the results folder, no byte code, no user site, no auto-loaded
     * pytest plugins except the ones setup installed into the prefix (loaded by name).
     */
    public Map<String, String> forGrading(Path resultsHome) {
        Map<String, String> m = common();
        m.put("HOME", resultsHome.toString());
        m.put("TMPDIR", resultsHome.toString());
        m.put("PYTHONDONTWRITEBYTECODE", "1");
        m.put("PYTHONNOUSERSITE", "1");
        if (m.containsKey("GOCACHE")) m.put("GOCACHE", gradingGoCache(resultsHome).toString()); // seeded by Episode
        m.putIfAbsent("CARGO_NET_OFFLINE", "true");
        // cargo builds into ./target by default, and the grading tree is read-only (a per-test cargo run sets its own)
        m.putIfAbsent("CARGO_TARGET_DIR", gradingCargoTarget(resultsHome).toString());
        PythonTools.afterSetup(m, resultsHome.toString());
        pytestPluginVars(m);
        return m;
    }

    private static final String GRADING_GO_CACHE = "go-build";

    /** The Go build cache setup warmed, when the environment has Go; grading's starts as a copy of it. */
    public Optional<Path> warmGoCache() {
        return Optional.ofNullable(vars.get("GOCACHE")).map(Path::of).filter(Files::isDirectory);
    }

    /** The cargo target folder setup compiled into ({@link CargoWarmup}); grading's starts as a copy of it. */
    public Optional<Path> warmCargoTarget() {
        return Optional.of(prefix.resolve(CargoWarmup.TARGET)).filter(Files::isDirectory);
    }

    /** Grading's CARGO_TARGET_DIR (in {@link #forGrading}; a per-test cargo run's own only adds where this is unset). */
    public static Path gradingCargoTarget(Path resultsHome) { return resultsHome.resolve(CargoWarmup.TARGET); }

    /** Grading's writable Go build cache (GOCACHE in {@link #forGrading}). */
    public static Path gradingGoCache(Path resultsHome) { return resultsHome.resolve(GRADING_GO_CACHE); }

    /** Folders a box shows read-only for this environment: the prefix and the toolchains outside /usr. */
    public List<Path> readOnly() {
        Set<Path> out = new LinkedHashSet<>();
        if (Files.isDirectory(prefix)) out.add(prefix);
        for (Path r : roots) if (!isSystem(r) && Files.exists(r)) out.add(r);
        return List.copyOf(out);
    }

    public ExecEnvironment withPlugins(List<Path> sites, List<String> plugins) {
        return new ExecEnvironment(name, key, prefix, venv, path, vars, toolchains, warnings, roots, sites, plugins);
    }

    public ExecEnvironment withWarning(String w) {
        List<String> l = new ArrayList<>(warnings);
        l.add(w);
        return new ExecEnvironment(name, key, prefix, venv, path, vars, toolchains, l, roots, siteDirs, pytestPlugins);
    }

    public ExecEnvironment withVar(String k, String v) {
        Map<String, String> m = new LinkedHashMap<>(vars);
        m.put(k, v);
        return new ExecEnvironment(name, key, prefix, venv, path, m, toolchains, warnings, roots, siteDirs, pytestPlugins);
    }

    /** The lines the run prints first: where the environment lives, each toolchain, each substitution as a warning. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        out.add("execution environment: " + prefix + (venv != null ? " (venv " + venv.getFileName() + ")" : "")
                + "; the same PATH and variables for setup, agent and grading; read-only after setup");
        StringBuilder t = new StringBuilder("toolchains:");
        for (ToolchainResolver.Choice c : toolchains) {
            if (c.used() != null) t.append(' ').append(c.language()).append(' ').append(c.used()).append(c.wanted() == null ? "" : " (asked " + c.wanted() + ")").append(';');
        }
        out.add(t.toString());
        for (String w : warnings) out.add("WARNING: " + w);
        return out;
    }

    /** What result.json records. */
    public Map<String, Object> summary() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("prefix", prefix.toString());
        if (venv != null) m.put("venv", venv.toString());
        m.put("path", String.join(":", path));
        m.put("setupHome", setupHome().toString());
        m.put("env", new LinkedHashMap<>(vars));
        List<Map<String, Object>> tc = new ArrayList<>();
        for (ToolchainResolver.Choice c : toolchains) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("language", c.language());
            if (c.wanted() != null) x.put("wanted", c.wanted());
            x.put("used", c.used());
            if (c.warning() != null) x.put("warning", c.warning());
            tc.add(x);
        }
        m.put("toolchains", tc);
        m.put("pytestPlugins", pytestPlugins);
        m.put("warnings", warnings);
        return m;
    }

    private Map<String, String> common() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PATH", String.join(":", path));
        m.putAll(vars);
        return m;
    }

    private void pytestPluginVars(Map<String, String> m) {
        m.put("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        List<String> modules = new ArrayList<>();
        String own = vars.get("PYTEST_PLUGINS");
        if (own != null && !own.isBlank()) modules.add(own);
        for (String p : pytestPlugins) modules.add(p.substring(p.indexOf('=') + 1));
        if (!modules.isEmpty()) m.put("PYTEST_PLUGINS", String.join(",", modules));
    }

    static boolean isSystem(Path p) {
        Path n = p.toAbsolutePath().normalize();
        // "/" itself: a tool found in /bin or /sbin (a PATH where they come before /usr/bin, as `setpriv --reset-env`'s)
        // has the root as its folder's parent; shown read-only it was the whole host in the box (host round 6, B3)
        return n.getNameCount() == 0 || List.of("usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32").contains(n.getName(0).toString());
    }
}
