package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Test steps CI reaches through an action or a build tool derive did not read (rustdesk, hugo). */
class ToolActionStepsTest {
    @TempDir
    Path repo;

    @Test
    void actionsRsCargoTestIsTheCargoCommandItRuns() throws Exception {
        Files.writeString(repo.resolve("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n");
        Derivation d = derive(repo, "rust-actions-rs.yml");

        assertThat(d.verifier().command()).isEqualTo("cargo test --locked --workspace -- --skip slow_test");
        assertThat(step(d, 4).decision()).isEqualTo(Disposition.TEST);
        assertThat(step(d, 4).notes()).anyMatch(n -> n.contains("actions-rs/cargo@v1 runs `cargo test"));
        assertThat(step(d, 3).decision()).as("cargo build is not a test").isNotEqualTo(Disposition.TEST);
        assertThat(d.toolchains()).containsKey("rust");
    }

    @Test
    void aMageTestTargetIsTheTestStep() throws Exception {
        Files.writeString(repo.resolve("magefile.go"), "//go:build mage\npackage main\nfunc Test() error { return nil }\n");
        Derivation d = derive(repo, "go-mage.yml");

        assertThat(d.verifier().command()).contains("mage -v test");
        assertThat(step(d, 5).decision()).isEqualTo(Disposition.TEST);
        assertThat(d.setupScript()).contains("go install github.com/magefile/mage@v1.15.0");
    }
}
