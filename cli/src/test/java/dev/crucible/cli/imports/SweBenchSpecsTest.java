package dev.crucible.cli.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python step that reads swebench's install specifications, run against the real releases (4.1.0 has
 * MAP_REPO_VERSION_TO_SPECS, 5.0.2 does not) and against a Python without swebench; and the setup script and test
 * command built from what it returns.
 */
@Timeout(600)
class SweBenchSpecsTest {
    private static String python(String release) throws Exception {
        Path p = SweBenchPythons.python(release);
        assumeTrue(p != null, SweBenchPythons.missing());
        return p.toString();
    }

    @Test
    void swebench4GivesTheSpecAndItsInstallSteps(@TempDir Path dir) throws Exception {
        SweBenchSpecs.Lookup flask = SweBenchSpecs.lookup(python(SweBenchPythons.WITH_SPECS), true, "pallets/flask", "3.0");
        assertThat(flask.found()).as(flask.reason()).isTrue();
        assertThat(flask.release()).isEqualTo(SweBenchPythons.WITH_SPECS);
        assertThat(flask.spec().path("python").asText()).isEqualTo("3.11");
        assertThat(flask.reqsPaths()).containsExactly("requirements/dev.txt");
        assertThat(flask.source()).isEqualTo("swebench 4.1.0 MAP_REPO_VERSION_TO_SPECS[\"pallets/flask\"][\"3.0\"]");
        assertThat(SweBenchSpecs.pytestCommand(flask)).isEqualTo("python -m pytest -rA -p no:cacheprovider");

        // requests 2.31: packages "pytest", install "python -m pip install ." (made editable, and said so)
        SweBenchSpecs.Lookup requests = SweBenchSpecs.lookup(python(SweBenchPythons.WITH_SPECS), true, "psf/requests", "2.31");
        Path repo = dir.resolve("r");
        java.nio.file.Files.createDirectories(repo);
        SweBenchImportTest.git(repo, "init", "-q");
        SweBenchImportTest.git(repo, "commit", "-q", "--allow-empty", "-m", "base");
        List<String> notes = new ArrayList<>();
        String script = SweBenchSpecs.setupScript(requests, repo, "HEAD", notes);
        assertThat(script.lines()).contains("python -m pip install pytest", "python -m pip install -e .")
                .doesNotContain("python -m pip install .");
        assertThat(notes).anyMatch(n -> n.contains("is run editable"));
    }

    @Test
    void swebench5HasNoSpecsAndSaysSo() throws Exception {
        SweBenchSpecs.Lookup l = SweBenchSpecs.lookup(python(SweBenchPythons.WITHOUT_SPECS), true, "pallets/flask", "3.0");
        assertThat(l.found()).isFalse();
        assertThat(l.reason()).isEqualTo("swebench 5.0.2 has no MAP_REPO_VERSION_TO_SPECS (5.x dropped the per-repository specifications)");
    }

    @Test
    void aRepoOrVersionWithoutSpecIsNamed() throws Exception {
        String py = python(SweBenchPythons.WITH_SPECS);
        assertThat(SweBenchSpecs.lookup(py, true, "pallets/click", "8.5").reason()).isEqualTo("swebench 4.1.0 has no specification for pallets/click");
        assertThat(SweBenchSpecs.lookup(py, true, "psf/requests", "9.9").reason())
                .startsWith("swebench 4.1.0 has no specification for psf/requests version 9.9 (it has 0.11, ");
        assertThat(SweBenchSpecs.lookup(py, true, "psf/requests", null).reason()).contains("no version");
    }

    @Test
    @Timeout(30)
    void aPythonThatHangsIsBounded(@TempDir Path dir) throws Exception {
        Path hangs = dir.resolve("python");
        java.nio.file.Files.writeString(hangs, "#!/bin/sh\nexec sleep 120\n");
        assertThat(hangs.toFile().setExecutable(true)).isTrue();
        long start = System.nanoTime();
        SweBenchSpecs.Lookup l = SweBenchSpecs.lookup(hangs.toString(), true, "pallets/flask", "3.0", 2);
        assertThat(l.reason()).isEqualTo(hangs + " did not answer within 2 s");
        assertThat((System.nanoTime() - start) / 1_000_000_000L).isLessThan(15);
    }

    @Test
    void aPythonWithoutSwebenchOrNoPythonAtAll(@TempDir Path dir) throws Exception {
        Path venv = dir.resolve("venv");
        assertThat(new ProcessBuilder("python3", "-m", "venv", venv.toString()).start().waitFor()).isZero();
        SweBenchSpecs.Lookup l = SweBenchSpecs.lookup(venv.resolve("bin/python").toString(), true, "pallets/flask", "3.0");
        assertThat(l.reason()).startsWith("the swebench package is not importable by ");
        assertThat(SweBenchSpecs.lookup(dir.resolve("nope").toString(), false, "pallets/flask", "3.0").reason()).contains("cannot be run");
    }
}
