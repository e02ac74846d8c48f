package dev.crucible.verifier.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the bench's own suites ({@link SyntheticSuite}, {@link CallHeavySuite}, {@link ChildSuite}) share: a workspace of
 * the given files with a pytest.ini, and a manifest that grades as the example does (pytest, tests protected, the hack
 * policy's defaults), named for the suite.
 */
final class BenchSuites {
    private BenchSuites() {}

    /** How many test files of {@code perFile} tests make about {@code tests}. */
    static int files(int tests, int perFile) { return Math.max(1, (tests + perFile - 1) / perFile); }

    /** Writes {@code dir/workspace} with {@code files} (workspace-relative name to text) and {@code dir/environment.yaml}; returns the manifest. */
    static Path write(Path dir, String name, Map<String, String> files) {
        try {
            Path ws = Files.createDirectories(dir.resolve("workspace"));
            Files.writeString(ws.resolve("pytest.ini"), "[pytest]\ntestpaths = tests\n");
            for (var f : files.entrySet()) {
                Path p = ws.resolve(f.getKey());
                Files.createDirectories(p.getParent());
                Files.writeString(p, f.getValue());
            }
            return Files.writeString(dir.resolve("environment.yaml"), MANIFEST.replace("@NAME@", name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final String MANIFEST = """
            apiVersion: crucible.dev/v1alpha1
            kind: RLEnvironment
            metadata:
              name: @NAME@
            spec:
              workspace:
                path: ./workspace
              verifier:
                type: test-suite
                framework: pytest
                command: python3 -m pytest -q -p no:cacheprovider
                rewardMode: binary
                timeoutSeconds: 600
                protectedPaths:
                  - tests/**
                  - pytest.ini
              hackPolicy:
                action: flag
            """;
}
