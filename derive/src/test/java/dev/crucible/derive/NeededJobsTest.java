package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3: a `build` job makes dist/pkg-VERSION.tar.gz and says VERSION as an output; the test job downloads
 * the artifact and unpacks it by that name. The derived setup runs the build job's steps, and the setup script
 * really unpacks the archive in a clone of the repository.
 */
class NeededJobsTest {
    @TempDir
    Path dir;

    private static final String WORKFLOW = """
            on: [push]
            jobs:
              build:
                runs-on: ubuntu-latest
                outputs:
                  version: ${{ steps.version.outputs.version }}
                steps:
                  - uses: actions/checkout@v4
                  - id: version
                    run: echo "version=1.4.2" >> $GITHUB_OUTPUT
                  - name: Build sdist
                    run: mkdir -p dist pkg-1.4.2 && cp -R src pkg-1.4.2/ && tar czf dist/pkg-1.4.2.tar.gz pkg-1.4.2
                  - uses: actions/upload-artifact@v4
                    with:
                      name: dist
                      path: dist/
              test:
                needs: build
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/download-artifact@v4
                    with:
                      name: dist
                      path: dist
                  - run: tar xf dist/pkg-${{ needs.build.outputs.version }}.tar.gz
                  - run: cd pkg-${{ needs.build.outputs.version }} && python -m unittest discover -s src
            """;

    @Test
    void theBuildJobRunsInSetupAndItsOutputIsTheValueItWrites() throws Exception {
        Path repo = Files.createDirectories(dir.resolve("repo"));
        Files.createDirectories(repo.resolve("src"));
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve("src/test_x.py"), "import unittest\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n");
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), WORKFLOW);
        git(repo, "init", "-q");
        git(repo, "add", "-A");
        git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "ci");

        Derivation d = new WorkflowDeriver().derive(repo, "HEAD", ".github/workflows/ci.yml", "test", Map.of(), null);
        assertThat(d.setupScript()).contains("tar czf dist/pkg-1.4.2.tar.gz").contains("tar xf dist/pkg-1.4.2.tar.gz")
                .doesNotContain("needs.build");
        assertThat(d.verifier().command()).contains("cd pkg-1.4.2");
        assertThat(d.notes()).anyMatch(n -> n.contains("needs.build.outputs.version: read from job 'build' step 'version'"));

        assumeTrue(new ProcessBuilder("tar", "--version").start().waitFor() == 0, "tar is not on PATH");
        Path clone = dir.resolve("clone");
        git(dir, "clone", "-q", repo.toString(), clone.toString());
        Process p = new ProcessBuilder("bash", "-c", d.setupScript()).directory(clone.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(clone.resolve("pkg-1.4.2/src/test_x.py")).exists();
    }

    private static void git(Path cwd, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("git", "-C", cwd.toString()));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }
}
