package dev.crucible.verifier.toolchain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Plans and provisions {@link ExecEnvironment}s. The prefix is a per-environment cache folder,
 * {@code <root>/<name>-<hash of setup, commit, dependency files>}, where {@code <root>} is the
 * {@code crucible.envCache} system property, else $CRUCIBLE_ENV_CACHE, else $XDG_DATA_HOME/crucible/envs,
 * else ~/.local/share/crucible/envs. It is reused by every attempt of the same environment: setup runs each
 * attempt (under a lock on the prefix) and finds what an earlier one installed.
 */
public final class ExecEnvironments {
    private ExecEnvironments() {}

    public static Path cacheRoot() {
        String p = System.getProperty("crucible.envCache");
        if (p == null) p = System.getenv("CRUCIBLE_ENV_CACHE");
        // not under ~/.cache: the agent's box shows the prefix's path, and nothing of the cache folder should appear there
        if (p == null && System.getenv("XDG_DATA_HOME") != null) p = System.getenv("XDG_DATA_HOME") + "/crucible/envs";
        if (p == null) p = dev.crucible.files.UserHome.path() + "/.local/share/crucible/envs"; // user.home is "?" for a uid without passwd entry
        return Path.of(p).toAbsolutePath().normalize();
    }

    /**
     * The environment {@code name} will run in. {@code keyMaterial} identifies what setup builds
     * (manifest, commit or workspace, setup script): a change makes a new prefix. {@code venv}: make a
     * Python venv at setup (environments with a setup script, or asking for a Python).
     */
    public static ExecEnvironment plan(String name, String keyMaterial, Map<String, String> toolchains, Map<String, String> setupEnv, boolean venv) {
        return plan(name, keyMaterial, toolchains, setupEnv, venv, cacheRoot(), InstalledToolchains.machine(), System.getenv());
    }

    static ExecEnvironment plan(String name, String keyMaterial, Map<String, String> toolchains, Map<String, String> setupEnv, boolean venv,
                                Path cacheRoot, InstalledToolchains m, Map<String, String> machineEnv) {
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(toolchains, m);
        String key = sha(name + "\0" + keyMaterial + "\0" + new java.util.TreeMap<>(toolchains == null ? Map.of() : toolchains)
                + "\0" + (r.python() == null ? "" : r.python().executable()));
        Path prefix = cacheRoot.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + key);
        Path venvDir = venv && r.python() != null && r.python().version().part(0) >= 3 ? prefix.resolve("venv") : null;
        Set<String> path = new LinkedHashSet<>();
        if (venvDir != null) path.add(venvDir.resolve("bin").toString());
        List<String> machinePath = List.of(machineEnv.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin").split(":"));
        for (ToolchainResolver.Choice c : r.choices()) {
            // a toolchain in /usr/bin keeps its place on PATH rather than jump ahead of /usr/local/bin
            c.bin().stream().filter(b -> !ExecEnvironment.isSystem(b) || !machinePath.contains(b.toString())).forEach(b -> path.add(b.toString()));
        }
        List<String> tools = PythonTools.asked(toolchains);
        if (!tools.isEmpty()) path.add(PythonTools.binDir(prefix).toString());
        for (String d : List.of("go/bin", "cargo/bin", "npm/bin", "home/.local/bin")) path.add(prefix.resolve(d).toString());
        for (String d : machinePath) {
            // shims would pick another interpreter than the one chosen here
            if (!d.isEmpty() && d.startsWith("/") && !d.contains("/shims")) path.add(d);
        }
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("LANG", machineEnv.getOrDefault("LANG", "C.UTF-8"));
        for (String k : List.of("LC_ALL", "TZ", "TERM", "JAVA_HOME", "PYENV_ROOT")) if (machineEnv.get(k) != null) vars.put(k, machineEnv.get(k));
        if (venvDir != null) vars.put("VIRTUAL_ENV", venvDir.toString());
        vars.put("PIP_DISABLE_PIP_VERSION_CHECK", "1"); // pip's own version check is network egress the sandbox blocks
        vars.put("GOPATH", prefix.resolve("go").toString());
        vars.put("GOCACHE", prefix.resolve("gocache").toString());
        vars.put("CARGO_HOME", prefix.resolve("cargo").toString());
        vars.put("NPM_CONFIG_PREFIX", prefix.resolve("npm").toString());
        // npm reads its global npmrc from under its prefix: keep the machine's (registry, cafile, proxy), and
        // the machine's CA and proxy variables, or setup's installs fail TLS behind an intercepting proxy.
        for (ToolchainResolver.Choice c : r.choices()) {
            if (!c.language().equals("node") || c.bin().isEmpty()) continue;
            Path npmrc = c.bin().get(0).toAbsolutePath().getParent().resolve("etc/npmrc");
            if (Files.isRegularFile(npmrc)) vars.put("NPM_CONFIG_GLOBALCONFIG", npmrc.toString());
        }
        for (String k : List.of("SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                "PIP_CERT", "GIT_SSL_CAINFO", "CARGO_HTTP_CAINFO", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                "NO_PROXY", "no_proxy")) {
            if (machineEnv.get(k) != null) vars.put(k, machineEnv.get(k));
        }
        List<Path> roots = new ArrayList<>();
        for (ToolchainResolver.Choice c : r.choices()) {
            vars.putAll(c.env());
            roots.addAll(c.roots());
        }
        vars.putAll(PythonTools.planVars(prefix, venvDir, tools));
        if (setupEnv != null) vars.putAll(setupEnv);
        return new ExecEnvironment(name, key, prefix, venvDir, List.copyOf(path), vars, r.choices(), r.warnings(), roots, List.of(), List.of());
    }

    /** Holds the prefix for one attempt's setup, so parallel attempts do not install into it at once. */
    public static java.io.Closeable lock(ExecEnvironment e) throws IOException {
        Files.createDirectories(e.prefix());
        EnvCache.prune(e.prefix().getParent(), e.prefix());
        // a file lock is per process: parallel attempts in this JVM queue on a lock of their own first
        java.util.concurrent.locks.ReentrantLock inJvm = LOCKS.computeIfAbsent(e.prefix(), p -> new java.util.concurrent.locks.ReentrantLock());
        inJvm.lock();
        try {
            FileChannel ch = FileChannel.open(e.prefix().resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l = ch.lock();
            try {
                EnvCache.using(e.prefix());
            } catch (IOException notMarked) {
                // unmarked, another process may remove the prefix once this one is past its setup: rare, and setup redoes it
            }
            return () -> {
                try {
                    l.release();
                    ch.close();
                } finally {
                    inJvm.unlock();
                }
            };
        } catch (IOException | RuntimeException ex) {
            inJvm.unlock();
            throw ex;
        }
    }

    /**
     * Call with {@link #lock} held, before {@link #provision}: removes what an unfinished setup left in the prefix (no
     * {@link ExecEnvironment#recordFile}: an attempt stopped mid-setup), so it is rebuilt, never reused half made.
     * Returns how many entries were removed (0: the prefix was new or complete).
     */
    public static int discardUnfinished(ExecEnvironment e) throws IOException {
        return EnvCache.discardUnfinished(e.prefix(), e.recordFile());
    }

    private static final Map<Path, java.util.concurrent.locks.ReentrantLock> LOCKS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Makes the prefix's folders, the venv (from the chosen interpreter, seeing its installed
     * packages read-only; {@code pip install} lands in the venv), fetches a pinned Go release and installs
     * the Python project tools asked for ({@link PythonTools}).
     * What cannot be provisioned becomes a warning and the installed toolchain is used.
     */
    public static ExecEnvironment provision(ExecEnvironment e, StringBuilder log) throws IOException {
        for (String d : List.of("home", "go", "gocache", "cargo", "npm")) Files.createDirectories(e.prefix().resolve(d));
        if (e.venv() != null && !Files.isExecutable(e.venv().resolve("bin/python3"))) {
            ToolchainResolver.Choice py = e.toolchains().stream().filter(c -> c.language().equals("python")).findFirst().orElseThrow();
            Path python = py.bin().get(0).resolve("python3");
            Out o = run(List.of(python.toString(), "-m", "venv", "--system-site-packages", e.venv().toString()), e.forSetup(), e.prefix(), Duration.ofMinutes(5));
            log.append("$ ").append(python).append(" -m venv --system-site-packages ").append(e.venv()).append('\n').append(o.text());
            if (o.code() != 0) throw new IOException("could not make the venv " + e.venv() + " from " + python + " (exit " + o.code() + "): " + o.tail());
        }
        for (ToolchainResolver.Choice c : e.toolchains()) {
            if (c.goToolchain() != null) e = GoToolchains.provision(e, c, log);
        }
        Path python = e.toolchains().stream().filter(c -> c.language().equals("python") && !c.bin().isEmpty()).findFirst()
                .map(c -> c.bin().get(0).resolve("python3")).orElse(null);
        return PythonTools.provision(e, python, System.getenv(), log);
    }

    /**
     * After a successful setup: warms the Go build cache for the module in {@code workspace} (the
     * agent and grading see the cache read-only), records the pytest plugins setup installed into the
     * venv, and writes {@link ExecEnvironment#recordFile}.
     */
    public static ExecEnvironment afterSetup(ExecEnvironment e, Path workspace, StringBuilder log) throws IOException {
        return afterSetup(e, workspace, log, null, Duration.ofMinutes(20));
    }

    /**
     * As {@link #afterSetup(ExecEnvironment, Path, StringBuilder)}; the build warm-ups (Go's cache, cargo's target,
     * {@link CargoWarmup} with the flags of {@code testCommand}) count against {@code left}, what setup's own limit
     * leaves: they are part of setup (before, caddy's Go warm-up ran on past a 150 s setup limit).
     */
    public static ExecEnvironment afterSetup(ExecEnvironment e, Path workspace, StringBuilder log, String testCommand, Duration left) throws IOException {
        long deadline = System.nanoTime() + left.toNanos();
        java.util.function.Supplier<Duration> remaining = () -> Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        java.util.Optional<ToolchainResolver.Choice> go = e.toolchains().stream().filter(c -> c.language().equals("go") && c.used() != null).findFirst();
        if (Files.isRegularFile(workspace.resolve("go.mod")) && go.isPresent() && remaining.get().toSeconds() < 5) {
            e = e.withWarning("no time left in setup's limit to warm the Go build cache: the first go test compiles everything");
        } else if (Files.isRegularFile(workspace.resolve("go.mod")) && go.isPresent()) {
            // all that setup's limit leaves, no cap of its own: a 10-minute cap stopped caddy's -race warm-up at a
            // 1200 s setup limit, and grading compiled the rest inside its own limit
            Duration limit = remaining.get();
            List<String> argv = new ArrayList<>(List.of(go.get().bin().get(0).resolve("go").toString()));
            argv.addAll(GoWarmup.arguments(testCommand)); // the verifier's build flags: the cache grading reads
            log.append("$ go ").append(String.join(" ", argv.subList(1, argv.size())))
                    .append("   (warms the build cache; ").append(limit.toSeconds()).append(" s at most, what setup's limit leaves)\n");
            Out o = run(argv, e.forSetup(), workspace, limit);
            log.append(o.text());
            if (o.code() != 0) e = e.withWarning("warming the Go build cache failed (exit " + o.code() + "): the first go test compiles everything: " + o.tail());
        }
        java.util.Optional<ToolchainResolver.Choice> rust = e.toolchains().stream().filter(c -> c.language().equals("rust") && c.used() != null).findFirst();
        if (Files.isRegularFile(workspace.resolve("Cargo.toml")) && rust.isPresent()) {
            // The agent and grading have no network: the crates (and, without a Cargo.lock, the resolution) come from setup.
            Out o = run(List.of(rust.get().bin().get(0).resolve("cargo").toString(), "fetch"), e.forSetup(), workspace, Duration.ofMinutes(10));
            log.append("$ cargo fetch   (the crates the agent and grading build offline)\n").append(o.text());
            if (o.code() != 0) e = e.withWarning("cargo fetch failed (exit " + o.code() + "): building offline will fail: " + o.tail());
            else e = CargoWarmup.run(e, rust.get().bin().get(0).resolve("cargo"), workspace, testCommand, remaining.get(), log);
        }
        try {
            int n = ReadableCrates.apply(e.prefix().resolve("cargo"));
            if (n > 0) log.append("made ").append(n).append(" unpacked crate files and folders readable to the boxes' user (cargo keeps each publisher's modes)\n");
        } catch (IOException | RuntimeException x) {
            e = e.withWarning("could not make the unpacked crates readable: " + x.getMessage());
        }
        List<Path> sites = List.of();
        if (e.venv() != null) {
            Out o = run(List.of(e.venv().resolve("bin/python3").toString(), "-I", "-c", "import site; print('\\n'.join(site.getsitepackages()))"),
                    e.forSetup(), e.prefix(), Duration.ofSeconds(60));
            // only the venv's own site folders: plugins of the machine's interpreter stay off, as before
            String own = e.prefix().toString();
            sites = o.text().lines().map(String::strip).filter(s -> s.startsWith(own)).map(Path::of).toList();
        }
        GraderPath.install(sites); // grading's reporter survives a wrapper that sets PYTHONPATH itself
        for (String c : EditableInstalls.relocate(sites, workspace)) {
            log.append("editable install made tree-relative (grading and other attempts run elsewhere): ").append(c).append('\n');
        }
        ExecEnvironment done = e.withPlugins(sites, PytestPlugins.in(sites));
        Files.writeString(done.recordFile(), new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(done.summary()) + "\n");
        return done;
    }

    /** Whether setup left an editable install that finds its tree from the working directory at interpreter start. */
    public static boolean hasTreeRelativeInstalls(ExecEnvironment e) { return EditableInstalls.anyTreeRelative(e.siteDirs()); }

    /** What differs between the pytest plugins recorded at setup and those installed now ("+name=module" added, "-…" gone). */
    public static List<String> pluginDrift(ExecEnvironment e) {
        if (e.siteDirs().isEmpty()) return List.of();
        List<String> now = PytestPlugins.in(e.siteDirs());
        List<String> out = new ArrayList<>();
        for (String p : now) if (!e.pytestPlugins().contains(p)) out.add("+" + p);
        for (String p : e.pytestPlugins()) if (!now.contains(p)) out.add("-" + p);
        return out;
    }

    record Out(int code, String text) {
        String tail() {
            String t = text.strip();
            return t.length() > 400 ? "…" + t.substring(t.length() - 400) : t;
        }
    }

    static Out run(List<String> argv, Map<String, String> env, Path cwd, Duration limit) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Path out = Files.createTempFile("crucible-provision-", ".log");
        try {
            pb.redirectOutput(out.toFile());
            Process p = pb.start();
            if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Out(-1, Files.readString(out) + "\n[ran past " + limit.toSeconds() + " s]\n");
            }
            return new Out(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ie);
        } catch (IOException io) {
            return new Out(127, io.getMessage() + "\n");
        } finally {
            Files.deleteIfExists(out);
        }
    }

    static String sha(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8))).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
