package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.function.Consumer;

/** One episode graded through a stand-in grading container (the runner as PID 1 of a box, another uid). */
final class ContainerEpisode {
    /** The report, the results folder of the grading, and the runner's hello. */
    record Graded(VerifyReport report, Path results, JsonNode hello) {}

    private ContainerEpisode() {}

    /** {@code dir} holds the environment; the volume the sidecar shares with the container is made in it. */
    static Graded grade(Path dir, Environment env, Path workspace, boolean box, Consumer<Path> agent) throws Exception {
        // the container (another uid as root) reaches the volume through the test folder, never reads it
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Path volume = Files.createDirectories(dir.resolve("volume"));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path trees = Files.createDirectories(volume.resolve("trees"));
        try (GradingContainerExecutor ex = GradingContainerExecutor.listen(volume.resolve("runner.sock"), Duration.ofSeconds(20));
             GradingContainerProcess container = GradingContainerProcess.start(volume, dir, box)) {
            EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50))
                    .withGradingDir(trees).withGradingExecutor(ex).withProbeExecutor(ex);
            try (Episode ep = new Episode(env, workspace, o)) {
                ep.reset();
                agent.accept(workspace);
                VerifyReport r = ep.verify();
                JsonNode hello = ex.hello().orElseThrow(() -> new AssertionError("the runner never connected: " + container.log()));
                return new Graded(r, trees.resolve("results-1"), hello);
            }
        }
    }
}
