package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A pinned Go release is fetched once per machine, not once per environment. {@link GoToolchains} fetches it into
 * the prefix's module cache (the boxes see only the prefix); this keeps a copy of that release's module files
 * beside the prefixes ({@code envs/../go-toolchains/RELEASE}) and copies it into the next prefix that asks for the
 * same release before go looks for it. Before, every Go environment downloaded its ~70 MB release again: 73 s at
 * this machine's load, inside the time a derive's baseline has (lazygit and caddy ran out of it in setup).
 * The copy is made only after go ran the release, and published by a rename, so a half-made copy is never used.
 */
final class GoToolchainCache {
    private GoToolchainCache() {
    }

    /** The machine's copy of {@code release} ("go1.25.0") for environments under {@code prefix}'s folder. */
    static Path shared(Path prefix, String release) {
        return prefix.toAbsolutePath().getParent().resolveSibling("go-toolchains").resolve(release);
    }

    /** The prefix's module cache (GOMODCACHE, else GOPATH/pkg/mod). */
    static Path moduleCache(ExecEnvironment e) {
        String m = e.vars().get("GOMODCACHE");
        if (m != null && !m.isBlank()) return Path.of(m);
        return Path.of(e.vars().getOrDefault("GOPATH", e.prefix().resolve("go").toString())).resolve("pkg/mod");
    }

    /** Copies the machine's copy of the release into the prefix's module cache when there is one; whether it did. */
    static boolean restore(ExecEnvironment e, String release, StringBuilder log) throws IOException {
        Path from = shared(e.prefix(), release);
        Path mod = moduleCache(e);
        if (!Files.isDirectory(from.resolve("golang.org")) || Files.isDirectory(mod.resolve(toolchainDir(release)))) return false;
        Files.createDirectories(mod);
        ExecEnvironments.Out o = ExecEnvironments.run(List.of("cp", "-a", from + "/.", mod + "/"), e.forSetup(), e.prefix(), Duration.ofMinutes(5));
        log.append("copied ").append(release).append(" from the machine's Go toolchain cache ").append(from).append('\n').append(o.text());
        return o.code() == 0;
    }

    /** After go ran the release from the prefix: keeps a copy for the next environment (first one wins). */
    static void keep(ExecEnvironment e, String release, StringBuilder log) {
        Path to = shared(e.prefix(), release);
        Path mod = moduleCache(e);
        if (Files.isDirectory(to) || !Files.isDirectory(mod.resolve(toolchainDir(release)))) return;
        try {
            Path tmp = Files.createDirectories(to.getParent()).resolve("." + release + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
            List<String> argv = new ArrayList<>(List.of("sh", "-c",
                    "set -e; mkdir -p \"$2/golang.org\" \"$2/cache/download/golang.org\"; cp -a \"$1/golang.org/$3\" \"$2/golang.org/\";"
                            + " cp -a \"$1/cache/download/golang.org/toolchain\" \"$2/cache/download/golang.org/\"",
                    "sh", mod.toString(), tmp.toString(), toolchainDir(release).getFileName().toString()));
            ExecEnvironments.Out o = ExecEnvironments.run(argv, e.forSetup(), e.prefix(), Duration.ofMinutes(5));
            if (o.code() != 0) {
                log.append("could not keep ").append(release).append(" for other environments: ").append(o.tail()).append('\n');
                ExecEnvironments.run(List.of("rm", "-rf", tmp.toString()), e.forSetup(), e.prefix(), Duration.ofMinutes(2));
                return;
            }
            try {
                Files.move(tmp, to, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                log.append("kept ").append(release).append(" in the machine's Go toolchain cache ").append(to).append('\n');
            } catch (IOException raced) {
                ExecEnvironments.run(List.of("chmod", "-R", "u+w", tmp.toString()), e.forSetup(), e.prefix(), Duration.ofMinutes(2));
                ExecEnvironments.run(List.of("rm", "-rf", tmp.toString()), e.forSetup(), e.prefix(), Duration.ofMinutes(2));
            }
        } catch (IOException x) {
            log.append("could not keep ").append(release).append(" for other environments: ").append(x.getMessage()).append('\n');
        }
    }

    /** The release's extracted module, relative to a module cache: golang.org/toolchain@v0.0.1-go1.25.0.linux-amd64. */
    static Path toolchainDir(String release) {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
        return Path.of("golang.org", "toolchain@v0.0.1-" + release + ".linux-" + arch);
    }
}
