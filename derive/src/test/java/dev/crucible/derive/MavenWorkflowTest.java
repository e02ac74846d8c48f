package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** maven.yml: GitHub's Maven starter workflow with a formatting check. */
class MavenWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void mavenPackageRunsTheTestsAndLeavesJunitXml() throws Exception {
        Derivation d = derive(repo, "maven.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("java", "17"));
        assertThat(d.verifier().command()).isEqualTo("mvn -B package --file pom.xml");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isEqualTo("junit-xml");
        assertThat(d.verifier().reportPath()).isEqualTo("**/target/surefire-reports/TEST-*.xml");
        assertThat(d.lint().command()).isEqualTo("mvn -B spotless:check --file pom.xml");
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.LINT);
        assertThat(step(d, 4).decision()).isEqualTo(Disposition.TEST);
        assertThat(step(d, 5).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 5).reason()).contains("no local equivalent")
                .contains("advanced-security/maven-dependency-submission-action");
        assertThat(d.setupScript()).contains("no setup steps");
        assertThat(d.manifest().at("/spec/verifier/reportPath").asText())
                .isEqualTo("**/target/surefire-reports/TEST-*.xml");
    }
}
