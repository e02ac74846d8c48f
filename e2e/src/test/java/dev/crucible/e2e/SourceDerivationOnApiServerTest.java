package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.RLEnvironment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9 in the operator: an RLEnvironment whose spec.source names a repository, a commit and a CI
 * workflow gets its setup script and test command derived into status.derived (condition Derived);
 * a broken workflow is reported with its file and line.
 */
class SourceDerivationOnApiServerTest {

    static KubernetesClient client;

    @TempDir
    static Path dir;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    @Test
    void workflowOfTheSourceIsDerivedIntoStatus() throws Exception {
        String commit = repository(dir.resolve("ok"), """
                name: CI
                on: push
                jobs:
                  unit:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with: {python-version: "3.11"}
                      - run: pip install -r requirements.txt
                      - run: python -m pytest -q tests
                """);
        String ns = SharedCluster.namespace("derive");
        apply(ns, "from-ci", dir.resolve("ok"), commit);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var status = env(ns, "from-ci").getStatus();
            assertThat(status).isNotNull();
            assertThat(status.derived).isNotNull();
            assertThat(status.derived.job).isEqualTo("unit");
            assertThat(status.derived.testCommand).contains("python -m pytest -q tests");
            assertThat(status.derived.setupScript).contains("pip install -r requirements.txt");
            assertThat(status.derived.toolchains).containsEntry("python", "3.11");
            assertThat(status.conditions).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("Derived");
                assertThat(c.getStatus()).isEqualTo("True");
            });
        });
    }

    @Test
    void brokenWorkflowIsReportedWithItsLine() throws Exception {
        String commit = repository(dir.resolve("broken"), """
                name: CI
                jobs:
                  unit:
                    runs-on: ubuntu-latest
                    steps:
                      - run: echo lint only, no tests
                        uses: actions/checkout@v4
                """);
        String ns = SharedCluster.namespace("derive-bad");
        apply(ns, "broken-ci", dir.resolve("broken"), commit);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var status = env(ns, "broken-ci").getStatus();
            assertThat(status).isNotNull();
            assertThat(status.conditions).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("Derived");
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("DerivationFailed");
                assertThat(c.getMessage()).contains("ci.yml").containsPattern(":\\d+");
            });
        });
    }

    private static void apply(String ns, String name, Path repo, String commit) {
        client.resources(RLEnvironment.class).inNamespace(ns).load(new java.io.ByteArrayInputStream(("""
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: %s
                spec:
                  image: example/project:ci
                  source:
                    repo: %s
                    commit: %s
                    workflow: .github/workflows/ci.yml
                  task:
                    prompt: fix the failing test
                  verifier:
                    type: execution
                    command: python -m pytest -q tests
                """.formatted(name, repo, commit)).getBytes(StandardCharsets.UTF_8))).create();
    }

    private static RLEnvironment env(String ns, String name) {
        return client.resources(RLEnvironment.class).inNamespace(ns).withName(name).get();
    }

    private static String repository(Path repo, String workflow) throws Exception {
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), workflow);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "ci");
        return git(repo, "rev-parse", "HEAD").strip();
    }

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git failed: " + out);
        }
        return out;
    }
}
