package dev.crucible.cli.attacks;

import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The repository's example environment set up as an attack target, and the attack scripts beside it. */
final class AttackFixtures {
    private AttackFixtures() {}

    static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(p.resolve("attacks/agent"))) p = p.getParent();
        return p;
    }

    static Path example() { return repo().resolve("examples/python-bugfix"); }

    /**
     * A copy of the example in {@code dir} with: no setup script (it only checks pip), a hidden-tests
     * folder whose name carries {@code hiddenMarker}, a grader-only file beside the manifest, and the
     * attack scripts in {@code workspace/.attacks} with {@code env.sh} telling them where the host's targets are.
     */
    static Path attackEnvironment(Path dir, String hiddenMarker, String envSh) throws IOException {
        Files.createDirectories(dir);
        Path manifest = dir.resolve("environment.yaml");
        Files.writeString(manifest, Files.readString(example().resolve("environment.yaml"))
                .replace("python3 -m pip --version >/dev/null 2>&1 || true", "true")
                .replace("    rewardMode: binary\n", "    rewardMode: binary\n    hiddenTests:\n      path: ./" + hiddenMarker + "\n"));
        TreeCopy.copy(example().resolve("workspace"), dir.resolve("workspace"));
        Path hidden = Files.createDirectories(dir.resolve(hiddenMarker).resolve("tests"));
        Files.writeString(hidden.resolve("test_hidden_canary.py"), "def test_hidden_canary():\n    assert True\n");
        Files.writeString(dir.resolve("grader-notes.txt"), "grader-only notes: the fix is true division\n");
        Path scripts = Files.createDirectories(dir.resolve("workspace/.attacks"));
        try (Stream<Path> s = Files.list(repo().resolve("attacks/agent"))) {
            for (Path p : s.toList()) Files.copy(p, scripts.resolve(p.getFileName()));
        }
        Files.writeString(scripts.resolve("env.sh"), envSh);
        return dir;
    }

    static String rolloutWithLimits(String name, String command, int maxSeconds, String extraLimits) {
        return """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: %s
                spec:
                  environmentRef:
                    name: calc-divide-bugfix
                  mode: embedded
                  agent:
                    command: ["sh", "-c", %s]
                  limits:
                    maxDurationSeconds: %d
                %s""".formatted(name, jsonString(command), maxSeconds, extraLimits);
    }

    static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
