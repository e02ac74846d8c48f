package dev.crucible.api.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.api.validation.CrdSchemas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The build fails when the CRDs generated from the Java types differ from those committed in
 * {@code crds/} and {@code helm/crucible/crds/}, or when they break compatibility with the committed
 * ones. {@code -Dcrds.update=true} rewrites the committed files (refused on a breaking change unless
 * {@code -Dcrds.allowBreaking=true} is given too).
 */
class CommittedCrdsTest {

    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void committedCrdsMatchGeneratedAndStayCompatible() throws IOException {
        Path root = RepoPaths.root();
        Path generatedDir = root.resolve("crds/target/classes").resolve(CrdSchemas.RESOURCE_DIR);
        boolean update = Boolean.getBoolean("crds.update");
        boolean allowBreaking = Boolean.getBoolean("crds.allowBreaking");
        List<String> problems = new ArrayList<>();
        for (String file : CrdSchemas.FILES) {
            String generated = Files.readString(generatedDir.resolve(file));
            Path committed = root.resolve("crds").resolve(file);
            Path inChart = root.resolve("helm/crucible/crds").resolve(file);
            if (Files.exists(committed)) {
                List<String> breaking = CrdCompatibility.breakingChanges(
                        YAML.readTree(Files.readString(committed)), YAML.readTree(generated));
                if (!breaking.isEmpty() && !allowBreaking) {
                    problems.add(file + " has breaking changes against the committed CRD: " + breaking);
                    continue;
                }
            }
            for (Path target : List.of(committed, inChart)) {
                String current = Files.exists(target) ? Files.readString(target) : null;
                if (generated.equals(current)) {
                    continue;
                }
                if (update) {
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, generated);
                } else {
                    problems.add(root.relativize(target) + " differs from the CRD generated from the Java types;"
                            + " run ./mvnw -pl crds verify -Dcrds.update=true and commit the result");
                }
            }
        }
        assertThat(problems).as("committed CRDs").isEmpty();
    }

    @Test
    void everyGeneratedCrdIsOnTheClasspathWithItsShortNameAndCategory() {
        CrdSchemas crds = new CrdSchemas();
        assertThat(crds.all().keySet()).containsExactly("RLEnvironment", "Rollout", "RolloutSnapshot", "ProbeModel");
        List<String> shortNames = new ArrayList<>();
        crds.all().forEach((kind, c) -> assertThat(c.kind()).as("kind of the file mapped to " + kind).isEqualTo(kind));
        crds.all().values().forEach(c -> {
            JsonNode names = c.crd().path("spec").path("names");
            names.path("shortNames").forEach(n -> shortNames.add(n.asText()));
            assertThat(names.path("categories").toString()).contains("crucible");
            assertThat(c.crd().path("spec").path("versions").get(0).path("subresources").has("status")).isTrue();
            assertThat(c.apiVersion()).isEqualTo("crucible.dev/v1alpha1");
        });
        assertThat(shortNames).containsExactly("rlenv", "crro", "rsnap", "probe");
    }
}
