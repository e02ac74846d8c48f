package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Python project tools a workflow asks for ({@code astral-sh/setup-uv}, or {@code toolchains: {poetry: …}}):
 * each is installed from the package index into a venv of its own under the prefix ({@code tools/NAME},
 * pipx-like, so the tool's dependencies stay out of the project's venv) and linked into {@code tools/bin}
 * on PATH. The index is the machine's: {@code pip config list} read with the machine's HOME (setup's HOME
 * is the prefix's, where pip would not find a user pip.conf), passed on as PIP_* and as the variables uv and
 * pdm read, which do not read pip's files. uv and poetry install the project into the environment's venv,
 * so grading's runners see what {@code uv sync --locked} installed; after setup uv runs offline without
 * syncing ({@link #afterSetup}), as the agent's and grading's boxes have no network and a read-only venv.
 */
public final class PythonTools {
    /** Tool → its executables. */
    static final Map<String, List<String>> TOOLS = Map.of("uv", List.of("uv", "uvx"), "pdm", List.of("pdm"),
            "poetry", List.of("poetry"), "hatch", List.of("hatch"), "nox", List.of("nox"), "tox", List.of("tox"));
    private static final Pattern PLAIN = Pattern.compile("v?\\d+(\\.\\d+)*");
    private static final Pattern WILDCARD = Pattern.compile("v?(\\d+(\\.\\d+)*)\\.(x|\\*)");
    private static final Pattern SPECIFIER = Pattern.compile("(==|>=|<=|~=|!=|<|>)\\s*[0-9][0-9A-Za-z.*]*(\\s*,\\s*(==|>=|<=|~=|!=|<|>)\\s*[0-9][0-9A-Za-z.*]*)*");
    /** pip's settings that name where packages come from and how to trust it. */
    private static final List<String> INDEX_KEYS = List.of("index-url", "extra-index-url", "find-links", "trusted-host", "cert", "client-cert");

    private PythonTools() {}

    public static boolean isTool(String name) { return TOOLS.containsKey(name); }

    /**
     * The pip requirement for {@code tool} at the version the workflow asks ({@code 0.5.x} → {@code uv==0.5.*});
     * "latest", empty or {@code *} → the newest. Anything else is refused with the field named.
     */
    static String requirement(String tool, String version) {
        String v = version == null ? "" : version.strip();
        if (v.isEmpty() || v.equals("*") || v.equalsIgnoreCase("latest") || v.equalsIgnoreCase("x")) return tool;
        if (PLAIN.matcher(v).matches()) return tool + "==" + v.replaceFirst("^v", "");
        var w = WILDCARD.matcher(v);
        if (w.matches()) return tool + "==" + w.group(1) + ".*";
        if (SPECIFIER.matcher(v).matches()) return tool + v.replace(" ", "");
        throw new IllegalArgumentException("spec.setup.toolchains." + tool + ": '" + version
                + "' is not a version or version specifier (e.g. 0.5.4, 0.5.x, >=0.4)");
    }

    /** Where the tools' executables are linked: on PATH for every phase. */
    static Path binDir(Path prefix) { return prefix.resolve("tools/bin"); }

    /** Variables the tools read, fixed at plan time (the index comes at provisioning: {@link #indexVars}). */
    static Map<String, String> planVars(Path prefix, Path venv, Iterable<String> tools) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String t : tools) {
            switch (t) {
                case "uv" -> {
                    m.put("UV_CACHE_DIR", prefix.resolve("uv-cache").toString());
                    m.put("UV_PYTHON_DOWNLOADS", "never"); // interpreters come from the machine, as python's toolchain does
                    m.put("UV_LINK_MODE", "copy"); // the cache and the venv may sit on different file systems in a box
                    if (venv != null) {
                        m.put("UV_PROJECT_ENVIRONMENT", venv.toString());
                        m.put("UV_PYTHON", venv.resolve("bin/python3").toString());
                    }
                }
                case "poetry" -> {
                    m.put("POETRY_CACHE_DIR", prefix.resolve("poetry-cache").toString());
                    if (venv != null) m.put("POETRY_VIRTUALENVS_CREATE", "false"); // install into the active venv
                }
                case "pdm" -> m.put("PDM_CACHE_DIR", prefix.resolve("pdm-cache").toString());
                default -> { }
            }
        }
        return m;
    }

    /**
     * The machine's pip settings for where packages come from, as variables for pip (PIP_*), uv and pdm.
     * {@code pipConfigList}: the output of {@code pip config list} ({@code section.key='value'} lines).
     */
    static Map<String, String> indexVars(String pipConfigList, Iterable<String> tools) {
        Map<String, String> pip = new LinkedHashMap<>();
        for (String line : pipConfigList.lines().toList()) {
            int eq = line.indexOf('=');
            if (eq < 0) continue;
            String key = line.substring(0, eq).strip();
            String name = key.substring(key.lastIndexOf('.') + 1);
            String value = line.substring(eq + 1).strip().replaceAll("^'(.*)'$", "$1").replaceAll("^\"(.*)\"$", "$1");
            // a later, more specific section (install.) wins over global.
            if (INDEX_KEYS.contains(name) && !value.isEmpty()) pip.put(name, value);
        }
        Map<String, String> m = new LinkedHashMap<>();
        pip.forEach((k, v) -> m.put("PIP_" + k.toUpperCase().replace('-', '_'), v));
        for (String t : tools) {
            if (t.equals("uv")) {
                put(m, "UV_INDEX_URL", pip.get("index-url"));
                put(m, "UV_EXTRA_INDEX_URL", pip.get("extra-index-url"));
                put(m, "UV_FIND_LINKS", pip.get("find-links") == null ? null : String.join(",", pip.get("find-links").split("\\s+")));
                put(m, "UV_INSECURE_HOST", pip.get("trusted-host"));
                put(m, "SSL_CERT_FILE", pip.get("cert"));
            } else if (t.equals("pdm")) {
                put(m, "PDM_PYPI_URL", pip.get("index-url"));
            }
        }
        return m;
    }

    private static void put(Map<String, String> m, String k, String v) {
        if (v != null) m.putIfAbsent(k, v);
    }

    /**
     * Installs each asked tool once per prefix. A tool that cannot be installed is a warning (the machine's,
     * if it has one on PATH, is used), as for the other toolchains.
     */
    static ExecEnvironment provision(ExecEnvironment e, Path python, Map<String, String> machineEnv, StringBuilder log) throws IOException {
        // a tool without a usable version or interpreter already carries its warning (ToolchainResolver)
        List<ToolchainResolver.Choice> asked = e.toolchains().stream().filter(c -> isTool(c.language()) && c.used() != null).toList();
        if (asked.isEmpty()) return e;
        if (python == null) {
            for (ToolchainResolver.Choice c : asked) e = e.withWarning(c.language() + ": no Python interpreter here to install it with");
            return e;
        }
        ExecEnvironments.Out cfg = ExecEnvironments.run(List.of(python.toString(), "-m", "pip", "config", "list"), machineEnv, e.prefix(), Duration.ofSeconds(60));
        List<String> names = asked.stream().map(ToolchainResolver.Choice::language).toList();
        if (cfg.code() == 0) {
            for (Map.Entry<String, String> v : indexVars(cfg.text(), names).entrySet()) {
                if (!e.vars().containsKey(v.getKey())) e = e.withVar(v.getKey(), v.getValue());
            }
        }
        Files.createDirectories(binDir(e.prefix()));
        for (ToolchainResolver.Choice c : asked) {
            String tool = c.language();
            Path venv = e.prefix().resolve("tools").resolve(tool);
            Path exe = venv.resolve("bin").resolve(TOOLS.get(tool).get(0));
            if (!Files.isExecutable(exe)) {
                String req = requirement(tool, c.wanted());
                ExecEnvironments.Out o = ExecEnvironments.run(List.of(python.toString(), "-m", "venv", venv.toString()), e.forSetup(), e.prefix(), Duration.ofMinutes(5));
                if (o.code() == 0) {
                    o = ExecEnvironments.run(List.of(venv.resolve("bin/python3").toString(), "-m", "pip", "install", "-q", req), e.forSetup(), e.prefix(), Duration.ofMinutes(10));
                }
                log.append("$ pip install ").append(req).append("   (into ").append(venv).append(")\n").append(o.text());
                if (o.code() != 0 || !Files.isExecutable(exe)) {
                    e = e.withWarning(tool + " " + (c.wanted() == null ? "" : c.wanted()) + ": could not be installed from the package index ("
                            + o.tail() + "); whatever this machine has on PATH is used");
                    continue;
                }
            }
            for (String x : TOOLS.get(tool)) {
                Path link = binDir(e.prefix()).resolve(x);
                Path target = venv.resolve("bin").resolve(x);
                if (Files.isExecutable(target) && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) Files.createSymbolicLink(link, target);
            }
        }
        return e;
    }

    /**
     * The agent's and grading's variables: no network and a read-only venv, so uv neither syncs nor reaches
     * the index ({@code uv run --locked pytest} runs what setup installed), and keeps a cache of its own.
     */
    static void afterSetup(Map<String, String> m, String home) {
        if (!m.containsKey("UV_PROJECT_ENVIRONMENT") && !m.containsKey("UV_CACHE_DIR")) return;
        m.put("UV_OFFLINE", "1");
        m.put("UV_NO_SYNC", "1");
        m.put("UV_CACHE_DIR", home + "/.cache/uv");
    }

    /** The tools asked for, in the order asked. */
    static List<String> asked(Map<String, String> toolchains) {
        List<String> out = new ArrayList<>();
        if (toolchains != null) toolchains.keySet().forEach(k -> {
            String n = k.strip().toLowerCase();
            if (isTool(n)) out.add(n);
        });
        return out;
    }
}
