package dev.crucible.verifier.grade.runner;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.support.Envs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Real runners on small repositories made in the test: each graded through Episode (grading tree,
 * runner rewrite, parsing, scoring) with the graded command confined by bubblewrap without network,
 * so a test that needs the internet fails as it does in a real grading sandbox.
 */
final class RunnerFixtures {
    private RunnerFixtures() {}

    /** The tool's absolute path; the test is skipped, naming the tool, when it is not installed. */
    static String tool(String name, String... candidates) {
        for (String c : candidates) if (Files.isExecutable(Path.of(c))) return c;
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) return Path.of(d, name).toString();
        }
        assumeTrue(false, name + " is not installed: this test needs a real " + name);
        return null;
    }

    static VerifyReport grade(Path dir, String verifierYaml, Map<String, String> files) {
        var env = Envs.make(dir, verifierYaml, files);
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200))
                .withGradingExecutor(new CacheSandbox());
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), o)) {
            ep.reset();
            return ep.verify();
        }
    }

    static Map<String, String> statuses(VerifyReport r) {
        Map<String, String> m = new LinkedHashMap<>();
        for (TestCase t : r.tests().details()) m.put(t.id(), t.status().json());
        return m;
    }

    static TestCase test(VerifyReport r, String id) {
        return r.tests().details().stream().filter(t -> t.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no test " + id + " in " + statuses(r)));
    }

    static Map<String, String> with(Map<String, String> base, String path, String content) {
        Map<String, String> m = new LinkedHashMap<>(base);
        m.put(path, content);
        return m;
    }
}
