package dev.crucible.cli.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** derive's run scratch: the top-level files of each run kept, everything else deleted, read-only folders and links too. */
class RunResultsTest {
    @TempDir
    Path dir;

    @Test
    void keepsEachRunsFilesAndDeletesTheScratch() throws Exception {
        Path scratch = dir.resolve("crucible-baseline-1");
        Path run = scratch.resolve("baseline-1");
        Files.createDirectories(run.resolve("sandbox/workspace/.venv/lib"));
        Files.writeString(scratch.resolve("environment.yaml"), "kind: RLEnvironment\n");
        Files.writeString(run.resolve("result.json"), "{\"reward\": 1.0}\n");
        Files.writeString(run.resolve("setup.log"), "installed\n");
        Files.writeString(run.resolve(".agent.log"), "agent output\n");
        Files.createSymbolicLink(run.resolve("agent.log"), run.resolve(".agent.log"));
        Path secret = Files.writeString(dir.resolve("secret.txt"), "not derive's\n");
        Files.createSymbolicLink(run.resolve("elsewhere.log"), secret);
        Files.writeString(run.resolve("sandbox/workspace/.venv/lib/big.so"), "x".repeat(1000));
        // a Go module cache is read-only: its removal must not fail
        Path modcache = Files.createDirectories(run.resolve("sandbox/go/pkg/mod/example.com/m@v1"));
        Files.writeString(modcache.resolve("go.mod"), "module example.com/m\n");
        modcache.toFile().setWritable(false);

        Path keep = dir.resolve("out/env.baseline");
        List<String> kept = RunResults.keep(scratch, keep);

        assertThat(kept).containsExactlyInAnyOrder("environment.yaml", "baseline-1/agent.log", "baseline-1/result.json",
                "baseline-1/setup.log");
        assertThat(keep.resolve("baseline-1/agent.log")).hasContent("agent output");
        assertThat(Files.isSymbolicLink(keep.resolve("baseline-1/agent.log"))).isFalse();
        assertThat(keep.resolve("baseline-1/elsewhere.log")).doesNotExist(); // a link out of the run is not followed
        assertThat(keep.resolve("baseline-1/sandbox")).doesNotExist();
        assertThat(scratch).doesNotExist();
        assertThat(secret).hasContent("not derive's");
    }

    @Test
    void theKeptFolderSitsBesideTheManifest() {
        assertThat(RunResults.besides(Path.of("/o/vue.yaml"), "baseline")).isEqualTo(Path.of("/o/vue.baseline"));
        assertThat(RunResults.besides(Path.of("/o/env"), "baseline")).isEqualTo(Path.of("/o/env.baseline"));
    }
}
