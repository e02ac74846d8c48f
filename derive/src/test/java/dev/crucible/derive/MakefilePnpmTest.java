package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * prometheus: setup runs {@code make}, whose {@code ui-install} recipe runs {@code cd web/ui && pnpm install}; the
 * machine's pnpm was corepack's shim, which downloads pnpm at first use and failed ("Corepack cannot download the
 * latest stable version of pnpm"). A Makefile a kept make runs (the top one or {@code -C DIR}'s) counts as a step:
 * pnpm is installed in setup from the npm registry, ahead on PATH.
 */
class MakefilePnpmTest {
    @TempDir
    Path repo;

    private Derivation derive(String run) throws Exception {
        return WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", """
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                    - uses: actions/checkout@v4
                    - run: %s
                    - run: go test ./...
                """.formatted(run));
    }

    @Test
    void aRecipeOfTheTopMakefileThatRunsPnpmGetsPnpmInstalled() throws Exception {
        Files.writeString(repo.resolve("Makefile"), "all: ui-install\n\nui-install:\n\tcd web/ui && pnpm install\n");
        Derivation d = derive("make GO_ONLY=1");
        assertThat(d.setupScript()).contains("npm install -g pnpm@latest");
        assertThat(d.setupScript().indexOf("npm install -g pnpm@latest")).isLessThan(d.setupScript().indexOf("make GO_ONLY=1"));
        assertThat(d.notes()).anyMatch(n -> n.contains("a kept step or a Makefile recipe it runs uses pnpm"));
    }

    @Test
    void theMakefileOfMakeDashCIsRead() throws Exception {
        Files.writeString(repo.resolve("Makefile"), "all:\n\tgo build ./...\n");
        Files.createDirectories(repo.resolve("ui"));
        Files.writeString(repo.resolve("ui/Makefile"), "all:\n\tpnpm install --frozen-lockfile\n");
        assertThat(derive("make -C ui").setupScript()).contains("npm install -g pnpm@latest");
        assertThat(derive("make").setupScript()).doesNotContain("pnpm");
    }
}
