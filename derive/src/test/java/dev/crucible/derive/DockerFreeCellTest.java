package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cell whose tests need Docker is passed over for the best one whose tests do not (thefuck). */
class DockerFreeCellTest {
    @TempDir
    Path repo;

    @Test
    void theNewestCellRunsDockerSoTheNextBestIsTaken() throws Exception {
        Derivation d = derive(repo, "python-docker-cell.yml");

        assertThat(d.verifier().command()).isEqualTo("python -m pytest -v tests");
        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsEntry("python-version", "3.10");
        assertThat(d.notes()).anyMatch(n -> n.contains("runs its tests through Docker"));
    }

    @Test
    void aCellTheUserNamedIsKeptEvenWithDocker() throws Exception {
        Derivation d = derive(repo, "python-docker-cell.yml", null,
                Map.of("os", "ubuntu-latest", "python-version", "3.11"), null);
        assertThat(d.verifier().command()).contains("docker build");
    }
}
