package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.toolchain.InstalledToolchains;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Go module graded with {@code go test} in the grading box: go is on grading's PATH, GOPATH is the
 * environment's own, the build cache warmed at setup is read-only afterwards and the agent and grading
 * each build an edited package into a writable cache of their own, setup.env is there, and a toolchain that cannot be had is a warning in the run's first lines and in result.json.
 */
@Timeout(600)
class GoExecutionEnvironmentRunTest {

    @Test
    void goTestGradesWithThePerEnvironmentGopathAndSetupEnv(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        boolean rust = !m.rusts().isEmpty();
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(ws.resolve("go.mod"), "module example.com/envcheck\n\ngo 1.21\n");
        // the bug the agent fixes: its change must be compiled by its own go test and again by grading's
        Files.writeString(ws.resolve("envcheck.go"), "package envcheck\n\nfunc Add(a, b int) int { return a - b }\n");
        Files.writeString(ws.resolve("envcheck_test.go"), """
                package envcheck

                import (
                	"os"
                	"os/exec"
                	"strings"
                	"testing"
                )

                func TestAdd(t *testing.T) {
                	if Add(1, 2) != 3 {
                		t.Fatal("Add")
                	}
                }

                func TestEnvironment(t *testing.T) {
                	if os.Getenv("GITHUB_ACTIONS") != "true" {
                		t.Fatal("setup.env GITHUB_ACTIONS is missing")
                	}
                	if gp := os.Getenv("GOPATH"); !strings.Contains(gp, "/exec-env-go-") || !strings.HasSuffix(gp, "/go") {
                		t.Fatalf("GOPATH %q is not the environment's", gp)
                	}
                	// go writes its build cache on every build: grading's must be writable (the prefix's is not)
                	if f, err := os.CreateTemp(os.Getenv("GOCACHE"), "probe"); err != nil {
                		t.Fatalf("GOCACHE %q is not writable: %v", os.Getenv("GOCACHE"), err)
                	} else {
                		f.Close()
                	}
                	if os.Getenv("CHECK_CARGO") == "1" {
                		if _, err := exec.LookPath("cargo"); err != nil {
                			t.Fatalf("cargo is not on PATH: %v", err)
                		}
                	}
                }
                """);
        Path manifest = dir.resolve("environment.yaml");
        Files.writeString(manifest, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: exec-env-go
                spec:
                  workspace:
                    path: ./workspace
                  setup:
                    toolchains:
                      go: "1.19"
                    env:
                      GITHUB_ACTIONS: "true"
                      CHECK_CARGO: "%s"
                  task:
                    prompt: keep the tests passing
                  verifier:
                    type: execution
                    command: go test -count=1 ./...
                    timeoutSeconds: 300
                """.formatted(rust ? "1" : "0"));
        LocalRuns.Run r = LocalRuns.run("-f", manifest.toString(), "--agent-cmd",
                "sed -i 's/a - b/a + b/' envcheck.go && go test -count=1 -run TestAdd ./... > agent-go.txt 2>&1", "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("reward").asDouble()).as(r.out() + r.err() + res.toPrettyString()).isEqualTo(1.0);
        // the agent's own go test built its change in its box (a writable build cache of its own)
        assertThat(Files.readString(dir.resolve("out/sandbox/workspace/agent-go.txt"))).contains("ok").doesNotContain("read-only file system");
        JsonNode ex = res.path("execution");
        Path prefix = Path.of(ex.path("prefix").asText());
        assertThat(ex.path("env").path("GOPATH").asText()).isEqualTo(prefix.resolve("go").toString());
        try (var s = Files.list(prefix.resolve("gocache"))) {
            assertThat(s.count()).as("the build cache was warmed at setup").isGreaterThan(1);
        }
        // asked 1.19, which has no toolchain module: the installed go is used, and said so first and in the result
        assertThat(ex.path("warnings").toString()).contains("go 1.19").contains("installed " + m.go().version());
        String firstLines = String.join("\n", r.out().lines().limit(8).toList());
        assertThat(firstLines).contains("WARNING: go 1.19");
    }
}
