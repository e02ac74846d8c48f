package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ant-design: {@code utooland/setup-utoo}, then {@code ut} (install) and {@code ut test -- --maxWorkers=2 --shard=1/2}.
 * Setup failed with "ut: command not found"; utoo is npm-compatible, so its lines run with npm.
 */
class UtooCommandsTest {
    @TempDir
    Path repo;

    @Test
    void utooLinesRunWithNpm() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"name\":\"a\",\"scripts\":{\"test\":\"jest\"}}\n");
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/test.yml", """
                on: push
                jobs:
                  test-react-legacy:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        shard: [1/2, 2/2]
                    steps:
                      - uses: actions/checkout@v4
                      - uses: utooland/setup-utoo@e7aa4d726a17f79f68aed736476ea5bd68f8ba52 # v1
                      - run: ut
                      - name: dom test
                        run: ut test -- --maxWorkers=2 --shard=${{matrix.shard}}
                """);
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 2).reason()).contains("run with npm");
        assertThat(d.setupScript()).contains("npm install").doesNotContain("\nut");
        assertThat(d.verifier().command()).isEqualTo("npm run test -- --maxWorkers=2 --shard=1/2");
    }

    @Test
    void eachUtooCommandHasItsNpmForm() {
        assertThat(UtooCommands.toNpm("ut")).isEqualTo("npm install");
        assertThat(UtooCommands.toNpm("ut install --frozen")).isEqualTo("npm install --frozen");
        assertThat(UtooCommands.toNpm("  ut run build\nut test:node")).isEqualTo("  npm run build\nnpm run test:node");
        assertThat(UtooCommands.toNpm("ut x vitest list")).isEqualTo("npx vitest list");
        assertThat(UtooCommands.toNpm("ut clean")).isEqualTo("ut clean"); // its own command: left as written
        assertThat(UtooCommands.toNpm("utils/run.sh\necho ut")).isEqualTo("utils/run.sh\necho ut");
    }
}
