package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster image derive picks when a job names no container, and what it says about it. */
class ToolchainImagesTest {
    @TempDir
    Path repo;

    @Test
    void versionsBecomeTheOfficialImagesTags() {
        assertThat(ToolchainImages.image("python", "3.12").orElseThrow().image()).isEqualTo("python:3.12");
        assertThat(ToolchainImages.image("python", "3.x").orElseThrow().image()).isEqualTo("python:3");
        assertThat(ToolchainImages.image("python", ">=3.9").orElseThrow().image()).isEqualTo("python:3");
        assertThat(ToolchainImages.image("node", "20.x").orElseThrow().image()).isEqualTo("node:20");
        assertThat(ToolchainImages.image("node", "lts/*").orElseThrow().image()).isEqualTo("node:lts");
        assertThat(ToolchainImages.image("node", "*").orElseThrow().image()).isEqualTo("node:current");
        assertThat(ToolchainImages.image("go", "1.22.x").orElseThrow().image()).isEqualTo("golang:1.22");
        assertThat(ToolchainImages.image("go", "stable").orElseThrow().image()).isEqualTo("golang:latest");
        assertThat(ToolchainImages.image("rust", "1.60").orElseThrow().image()).isEqualTo("rust:1.60");
        assertThat(ToolchainImages.image("rust", "stable").orElseThrow().image()).isEqualTo("rust:latest");
        assertThat(ToolchainImages.image("rust", "nightly-2024-01-01").orElseThrow().image()).isEqualTo("rustlang/rust:nightly");
        assertThat(ToolchainImages.image("go", "1.22").orElseThrow().note()).contains("no python3");
        assertThat(ToolchainImages.image("zig", "0.13")).isEmpty();
    }

    @Test
    void theTestsToolchainComesFirstAndTheOthersAreNamed() {
        Map<String, String> both = new LinkedHashMap<>();
        both.put("node", "20");
        both.put("python", "3.12");
        ToolchainImages.Pick p = ToolchainImages.pick(both, "pytest").orElseThrow();
        assertThat(p.image()).isEqualTo("python:3.12");
        assertThat(p.note()).contains("[node]");
        assertThat(ToolchainImages.pick(both, null).orElseThrow().image()).isEqualTo("node:20");
        assertThat(ToolchainImages.pick(Map.of("zig", "1"), null)).isEmpty();
    }

    @Test
    void aDerivedGoEnvironmentGetsGolangAndSaysPython3IsMissing() throws Exception {
        Files.writeString(repo.resolve("go.mod"), "module example.com/x\n\ngo 1.22\n");
        Derivation d = WorkflowFixtures.derive(repo, "go.yml");
        assertThat(d.manifest().at("/spec/image").asText()).startsWith("golang:");
        assertThat(d.notes()).anyMatch(n -> n.startsWith("spec.image golang:") && n.contains("no python3"));
    }
}
