package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The part of this machine every box sees, read-only: /usr, the top-level /bin /lib… (symlinks
 * kept as symlinks), selected /etc files (no shadow, sudoers, ssh keys, machine-id), and the
 * prefixes of interpreters found on PATH outside those (a pyenv Python under /root: its
 * shims need pyenv itself, so the box gets the real prefix and its bin on PATH instead).
 */
final class HostView {
    static final List<String> TOP = List.of("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32");
    static final List<String> ETC = List.of("passwd", "group", "hosts", "hostname", "resolv.conf", "nsswitch.conf", "host.conf",
            "gai.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ssl", "ca-certificates", "ca-certificates.conf", "alternatives",
            "localtime", "timezone", "mime.types", "protocols", "services", "networks", "shells", "login.defs", "os-release",
            "lsb-release", "debian_version", "profile", "bash.bashrc", "inputrc", "gitconfig", "pip.conf", "python3", "magic",
            "locale.alias", "environment");
    /** Interpreters whose prefix is bound when found on PATH outside the system folders. */
    static final List<String> INTERPRETERS = List.of("python3", "python");
    private static final Map<Path, List<Path>> PREFIXES = new ConcurrentHashMap<>();

    private HostView() {}

    /** bwrap arguments for the system part. */
    static List<String> systemArgs() {
        List<String> a = new ArrayList<>();
        for (String t : TOP) {
            Path p = Path.of("/", t);
            try {
                if (Files.isSymbolicLink(p)) add(a, "--symlink", Files.readSymbolicLink(p).toString(), p.toString());
                else if (Files.isDirectory(p)) add(a, "--ro-bind", p.toString(), p.toString());
            } catch (IOException e) {
                // unreadable link: leave it out
            }
        }
        for (String e : ETC) {
            Path p = Path.of("/etc", e);
            if (Files.exists(p)) add(a, "--ro-bind", p.toString(), p.toString());
        }
        return a;
    }

    /** True when {@code p} is inside what {@link #systemArgs} binds (so it needs no bind of its own). */
    static boolean isSystem(Path p) {
        Path n = p.toAbsolutePath().normalize();
        if (n.getNameCount() == 0) return true; // the root: never a toolchain's folder to show (see Box#binds)
        String first = n.getName(0).toString();
        if (TOP.contains(first)) return true;
        return first.equals("etc") && n.getNameCount() >= 2 && ETC.contains(n.getName(1).toString());
    }

    /**
     * The toolchain prefixes a PATH needs that the system part lacks: for each PATH folder outside
     * it holding an interpreter, that interpreter's {@code sys.base_prefix} and {@code sys.prefix}
     * (asked once per JVM; a pyenv shim answers with the version it selects for {@code env}).
     */
    static List<Path> toolchains(String path, Map<String, String> env) {
        Set<Path> out = new LinkedHashSet<>();
        if (path == null) return List.of();
        for (String d : path.split(":")) {
            if (d.isEmpty() || !d.startsWith("/") || isSystem(Path.of(d))) continue;
            for (String name : INTERPRETERS) {
                Path exe = Path.of(d, name);
                if (Files.isExecutable(exe)) {
                    out.addAll(PREFIXES.computeIfAbsent(exe, x -> prefixesOf(x, env)));
                    break;
                }
            }
        }
        out.removeIf(HostView::isSystem);
        return List.copyOf(out);
    }

    /**
     * PATH inside the box: the interpreters' bin folders first, then the entries of {@code path}
     * that the box can see ({@code visible}); the rest (shims, folders under /root) would only fail.
     */
    static String boxPath(String path, List<Path> prefixes, List<Path> visible) {
        Set<String> out = new LinkedHashSet<>();
        for (Path p : prefixes) out.add(p.resolve("bin").toString());
        if (path != null) for (String d : path.split(":")) {
            if (d.isEmpty() || !d.startsWith("/")) continue;
            Path p = Path.of(d).normalize();
            if (isSystem(p) || visible.stream().anyMatch(p::startsWith)) out.add(d);
        }
        if (out.isEmpty()) out.add("/usr/bin:/bin");
        return String.join(":", out);
    }

    private static List<Path> prefixesOf(Path exe, Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(exe.toString(), "-I", "-c", "import sys; print(sys.prefix); print(sys.base_prefix)")
                    .redirectErrorStream(false);
            pb.environment().clear();
            for (String k : List.of("PATH", "PYENV_ROOT", "PYENV_VERSION", "HOME", "VIRTUAL_ENV")) {
                String v = env.getOrDefault(k, System.getenv(k));
                if (v != null) pb.environment().put(k, v);
            }
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return List.of();
            }
            List<Path> l = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (line.startsWith("/") && Files.isDirectory(Path.of(line.strip()))) {
                    Path pr = Path.of(line.strip()).normalize();
                    if (!l.contains(pr)) l.add(pr);
                }
            }
            return l;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static void add(List<String> a, String... s) { a.addAll(List.of(s)); }
}
