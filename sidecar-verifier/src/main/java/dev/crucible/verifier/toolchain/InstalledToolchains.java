package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The toolchains this machine has, found once per JVM: Python interpreters (pyenv versions and the
 * system's python3.X), the Go on PATH, rustup's installed toolchains, Node on PATH and nvm's.
 * Nothing is installed here; {@link ToolchainResolver} matches requests against this.
 *
 * @param defaultPython what {@code python3} on this machine's PATH runs (null when none)
 */
public record InstalledToolchains(List<Python> pythons, Python defaultPython, Go go, List<Rust> rusts, String rustDefault,
                                  Path rustupHome, List<Node> nodes) {
    /** {@code root}: the folder a sandbox must show for it to run (its prefix); {@code pyenvName} null for the system's. */
    public record Python(Version version, Path executable, Path root, String pyenvName) {}

    public record Go(Version version, Path goroot) {}

    /** {@code name}: rustup's ("nightly-x86_64-unknown-linux-gnu"); {@code channel}: "stable", "nightly", "beta" or "1.70.0". */
    public record Rust(String name, String channel, Version version, Path dir) {}

    public record Node(Version version, Path bin) {}

    private static volatile InstalledToolchains machine;

    /** This machine's toolchains, probed on first use. */
    public static InstalledToolchains machine() {
        InstalledToolchains m = machine;
        if (m == null) machine = m = probe(System.getenv());
        return m;
    }

    static InstalledToolchains probe(Map<String, String> env) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        List<Python> pythons = pythons(Path.of(env.getOrDefault("PYENV_ROOT", home + "/.pyenv")));
        Python def = defaultPython(pythons, path, env);
        Path rustupHome = Path.of(env.getOrDefault("RUSTUP_HOME", home + "/.rustup"));
        return new InstalledToolchains(pythons, def, go(path), rusts(rustupHome), rustDefault(rustupHome), rustupHome, nodes(path, Path.of(home, ".nvm/versions/node")));
    }

    private static List<Python> pythons(Path pyenvRoot) {
        List<Python> out = new ArrayList<>();
        for (Path v : list(pyenvRoot.resolve("versions"))) {
            Path exe = v.resolve("bin/python3");
            Optional<Version> ver = Version.parse(v.getFileName().toString());
            if (Files.isExecutable(exe) && ver.isPresent()) out.add(new Python(ver.get(), exe, v, v.getFileName().toString()));
        }
        for (String dir : List.of("/usr/local/bin", "/usr/bin")) {
            for (Path exe : list(Path.of(dir))) {
                String n = exe.getFileName().toString();
                if (!n.matches("python3\\.\\d+") || !Files.isExecutable(exe)) continue;
                Version ver = Version.parse(n.substring("python".length())).orElseThrow();
                if (out.stream().noneMatch(p -> p.pyenvName() == null && p.version().equals(ver))) out.add(new Python(ver, exe, exe.getParent().getParent(), null));
            }
        }
        out.sort(Comparator.comparing(Python::version));
        return List.copyOf(out);
    }

    /** What python3 on PATH is (a pyenv shim answers for its selected version). */
    private static Python defaultPython(List<Python> pythons, String path, Map<String, String> env) {
        Path exe = onPath(path, "python3");
        if (exe == null) return pythons.isEmpty() ? null : pythons.get(pythons.size() - 1);
        List<String> out = run(env, exe.toString(), "-I", "-c", "import sys; print(sys.base_prefix); print('.'.join(map(str, sys.version_info[:3])))");
        if (out.size() < 2) return null;
        Path prefix = Path.of(out.get(0));
        for (Python p : pythons) if (p.pyenvName() != null && p.root().equals(prefix)) return p;
        Version v = Version.parse(out.get(1)).orElse(null);
        for (Python p : pythons) if (p.pyenvName() == null && v != null && v.matches(p.version())) return p;
        return v == null ? null : new Python(v, exe, prefix, null);
    }

    private static Go go(String path) {
        Path exe = onPath(path, "go");
        if (exe == null) return null;
        List<String> out = run(Map.of("PATH", path, "GOTOOLCHAIN", "local", "HOME", System.getProperty("java.io.tmpdir")),
                exe.toString(), "env", "GOROOT", "GOVERSION");
        if (out.size() < 2) return null;
        return Version.parse(out.get(1)).map(v -> new Go(v, Path.of(out.get(0)))).orElse(null);
    }

    private static List<Rust> rusts(Path rustupHome) {
        List<Rust> out = new ArrayList<>();
        for (Path d : list(rustupHome.resolve("toolchains"))) {
            Path rustc = d.resolve("bin/rustc");
            if (!Files.isExecutable(rustc)) continue;
            String name = d.getFileName().toString();
            String channel = name.replaceFirst("-(x86_64|aarch64|i686|armv7|riscv64gc|powerpc64le|s390x)-.*$", "");
            List<String> v = run(Map.of("PATH", "/usr/bin:/bin"), rustc.toString(), "--version");
            Version ver = v.isEmpty() ? null : Version.parse(v.get(0).replaceFirst("^rustc (\\S+?)(-\\S+)? .*$", "$1")).orElse(null);
            if (ver != null) out.add(new Rust(name, channel, ver, d));
        }
        return List.copyOf(out);
    }

    private static String rustDefault(Path rustupHome) {
        try {
            for (String line : Files.readAllLines(rustupHome.resolve("settings.toml"))) {
                if (line.startsWith("default_toolchain")) return line.replaceFirst("^[^=]*=\\s*\"?([^\"]*)\"?\\s*$", "$1");
            }
        } catch (IOException e) {
            // no rustup here
        }
        return null;
    }

    private static List<Node> nodes(String path, Path nvm) {
        List<Node> out = new ArrayList<>();
        Path exe = onPath(path, "node");
        if (exe != null) {
            List<String> v = run(Map.of("PATH", path), exe.toString(), "--version");
            if (!v.isEmpty()) Version.parse(v.get(0)).ifPresent(ver -> out.add(new Node(ver, exe.getParent())));
        }
        for (Path d : list(nvm)) {
            Optional<Version> ver = Version.parse(d.getFileName().toString());
            if (ver.isPresent() && Files.isExecutable(d.resolve("bin/node")) && out.stream().noneMatch(n -> n.version().equals(ver.get()))) {
                out.add(new Node(ver.get(), d.resolve("bin")));
            }
        }
        return List.copyOf(out);
    }

    static Path onPath(String path, String name) {
        for (String d : path.split(":")) {
            if (d.isEmpty() || d.contains("pyenv/shims") && !name.startsWith("python")) continue;
            Path p = Path.of(d, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) return p;
        }
        return null;
    }

    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Runs a probe command with only {@code env}; its stdout lines, empty when it failed. */
    private static List<String> run(Map<String, String> env, String... argv) {
        try {
            ProcessBuilder pb = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().clear();
            pb.environment().putAll(env);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return List.of();
            }
            return p.exitValue() == 0 ? out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList() : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
