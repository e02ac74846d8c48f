package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * caddy: the verifier runs {@code go test -short -race ./...}; setup's warm-up compiled without -race, so grading found
 * nothing of its build in the cache and compiled the module and the standard library again (it timed out at 120 s).
 * The warm-up now builds with the verifier's build flags: after it, the verifier's own go test compiles nothing.
 */
@Timeout(900)
class GoWarmupTest {
    @Test
    void theWarmupBuildsWithTheVerifiersBuildFlags(@TempDir Path dir) throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        Path go = m.go().goroot().resolve("bin/go");
        ExecEnvironment e = ExecEnvironments.plan("go-warmup-test", "k", Map.of("go", m.go().version().toString()), Map.of(), false,
                dir.resolve("envs"), m, System.getenv());
        try (var lock = ExecEnvironments.lock(e)) {
            e = ExecEnvironments.provision(e, new StringBuilder());
        }
        ExecEnvironments.Out cgo = ExecEnvironments.run(List.of(go.toString(), "env", "CGO_ENABLED"), e.forSetup(), dir, Duration.ofMinutes(1));
        assumeTrue(cgo.text().strip().equals("1"), "-race needs cgo: " + cgo.text());
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(ws.resolve("go.mod"), "module example.com/warm\n\ngo 1.21\n");
        Files.writeString(ws.resolve("warm.go"), "package warm\n\nfunc Twice(n int) int { return 2 * n }\n");
        Files.writeString(ws.resolve("warm_test.go"), "package warm\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) { if Twice(2) != 4 { t.Fatal(\"2*2\") } }\n");

        StringBuilder log = new StringBuilder();
        // setup's limit left 15 minutes: the warm-up may take all of them (caddy's at a 1200 s limit was cut at 600 s)
        e = ExecEnvironments.afterSetup(e, ws, log, "mkdir -p test-results\ngo test -short -race ./...", Duration.ofMinutes(15));
        assertThat(log.toString()).contains("$ go test -count=1 -run ^$ -race ./...");
        assertThat(log.toString()).containsPattern("warms the build cache; (89[0-9]|900) s at most, what setup's limit leaves");
        assertThat(e.warnings()).noneMatch(w -> w.contains("Go build cache"));
        // what grading runs (the grader adds -count=1): -x prints every tool it starts; from a warm cache no compile
        ExecEnvironments.Out graded = ExecEnvironments.run(List.of(go.toString(), "test", "-x", "-count=1", "-short", "-race", "./..."),
                e.forSetup(), ws, Duration.ofMinutes(5));
        assertThat(graded.code()).as(graded.text()).isZero();
        assertThat(graded.text()).contains("ok  \texample.com/warm");
        assertThat(graded.text().lines().filter(l -> l.matches(".*/compile\\s.*")).toList())
                .as("packages compiled again in grading").isEmpty();
    }

    @Test
    void theWarmupTakesBuildFlagsAndPackagesOnly() {
        assertThat(GoWarmup.arguments("go test -short -race ./..."))
                .containsExactly("test", "-count=1", "-run", "^$", "-race", "./...");
        assertThat(GoWarmup.arguments("cd x\nCGO_ENABLED=1 go test -v -tags integration -run TestA -timeout 5m ./pkg/... ./cmd -args -update"))
                .containsExactly("test", "-count=1", "-run", "^$", "-tags", "integration", "./pkg/...", "./cmd");
        assertThat(GoWarmup.arguments("go test -ldflags \"-X a.b=c\" ./...")).containsExactly("test", "-count=1", "-run", "^$", "./...");
        assertThat(GoWarmup.arguments("make test")).containsExactly("test", "-count=1", "-run", "^$", "./...");
        assertThat(GoWarmup.arguments(null)).containsExactly("test", "-count=1", "-run", "^$", "./...");
    }
}
