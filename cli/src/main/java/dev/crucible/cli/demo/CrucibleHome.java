package dev.crucible.cli.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the Crucible checkout that holds the bundled examples, so {@code crucible demo} works from
 * any directory: {@code CRUCIBLE_HOME} first, then upwards from the CLI jar (cli/target/ lies inside
 * the checkout), then upwards from the current directory.
 */
public final class CrucibleHome {
    static final String MARKER = "examples/python-bugfix/environment.yaml";

    private CrucibleHome() {}

    public static Optional<Path> locate() {
        return locate(System.getenv("CRUCIBLE_HOME"), jarLocation(), Path.of("").toAbsolutePath());
    }

    static Optional<Path> locate(String envHome, Path jar, Path cwd) {
        List<Path> starts = new ArrayList<>();
        if (envHome != null && !envHome.isBlank()) {
            Path h = Path.of(envHome).toAbsolutePath().normalize();
            return Files.isRegularFile(h.resolve(MARKER)) ? Optional.of(h) : Optional.empty();
        }
        if (jar != null) starts.add(jar);
        starts.add(cwd);
        for (Path start : starts) {
            for (Path p = start.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
                if (Files.isRegularFile(p.resolve(MARKER))) return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Path jarLocation() {
        try {
            var src = CrucibleHome.class.getProtectionDomain().getCodeSource();
            return src == null ? null : Path.of(src.getLocation().toURI());
        } catch (Exception e) {
            return null; // unusual class loaders: fall back to the working directory
        }
    }
}
