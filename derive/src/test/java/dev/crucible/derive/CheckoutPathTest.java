package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that checks the repository out into a folder of its own ({@code actions/checkout} with {@code path: moby}) runs its
 * steps from the folder above it: {@code cd moby}, {@code working-directory: moby/sub}, {@code $GITHUB_WORKSPACE/moby}.
 * Derive's workspace is the repository itself, so those name the workspace's root (moby/moby's buildkit.yml: setup failed
 * with "cd moby: No such file or directory", twenty-repository sample).
 */
class CheckoutPathTest {
    @TempDir
    Path repo;

    private static final String WORKFLOW = """
            name: test
            on: [push]
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                    with:
                      path: moby
                  - uses: actions/setup-go@v5
                    with:
                      go-version: '1.22'
                  - name: Deps
                    working-directory: moby
                    run: go mod download
                  - name: Tools
                    working-directory: ./moby/hack
                    run: echo tools > tools.txt
                  - name: Generate
                    run: |
                      cd moby
                      echo "$GITHUB_WORKSPACE/moby" > where.txt
                  - name: Test
                    run: cd moby && go test ./...
            """;

    @Test
    void theCheckoutFolderIsTheWorkspaceRoot() throws Exception {
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/test.yml", WORKFLOW);

        String setup = d.manifest().at("/spec/setup/script").asText();
        assertThat(setup).as(d.manifestYaml()).contains("go mod download").doesNotContain("cd moby", "cd 'moby'", "\"moby\"", "GITHUB_WORKSPACE/moby");
        assertThat(setup).contains("cd hack").contains("\"$GITHUB_WORKSPACE\" > where.txt");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().command()).as(d.manifestYaml()).doesNotContain("moby").contains("go test");
        assertThat(d.reportJson()).contains("path: moby");
    }

    @Test
    void anotherRepositorysCheckoutFolderIsLeftAlone() throws Exception {
        String other = WORKFLOW.replace("      path: moby\n", "      path: moby\n          repository: moby/buildkit\n");
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/test.yml", other);

        assertThat(d.verifier().command()).contains("cd moby");
    }
}
