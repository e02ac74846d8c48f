package dev.crucible.api.compat;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the repository root from a test, whatever directory Maven runs it in. */
public final class RepoPaths {
    private RepoPaths() {
    }

    public static Path root() {
        String prop = System.getProperty("crucible.repo.root");
        Path p = prop != null ? Path.of(prop) : Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("crds").resolve("pom.xml"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("cannot find the repository root from " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
