package dev.crucible.verifier.support;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** An environment from a verifier YAML block and workspace files, graded once. */
public final class Envs {
    private Envs() {}

    public static Environment make(Path dir, String verifierYaml, Map<String, String> files) {
        files.forEach((k, v) -> Fixtures.write(dir.resolve("workspace").resolve(k), v));
        Fixtures.write(dir.resolve("workspace/.keep"), "");
        String indented = verifierYaml.stripIndent().lines().map(l -> "    " + l).reduce("", (a, b) -> a + b + "\n");
        Fixtures.write(dir.resolve("env.yaml"), "kind: RLEnvironment\nmetadata: {name: t}\nspec:\n  workspace: {path: ./workspace}\n  verifier:\n" + indented);
        return Environment.load(dir.resolve("env.yaml"));
    }

    public static VerifyReport grade(Environment env) {
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), o)) {
            ep.reset();
            return ep.verify();
        }
    }
}
