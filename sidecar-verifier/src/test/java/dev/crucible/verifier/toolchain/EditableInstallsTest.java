package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A src-layout project installed editable at setup (its .pth names the setup workspace) must import in
 * another tree, as in grading: from that tree, and also once the setup workspace is gone. Real python3 reads the site folder.
 */
class EditableInstallsTest {
    @TempDir
    Path dir;

    @Test
    void editablePathFollowsTheTreeTheInterpreterRunsIn() throws Exception {
        assumeTrue(onPath("python3"), "python3 not found on PATH");
        Path setupTree = project(dir.resolve("attempt-0/workspace"), "from setup tree");
        Path site = Files.createDirectories(dir.resolve("venv/site-packages"));
        Files.writeString(site.resolve("__editable__.pkgx-1.0.pth"), setupTree.resolve("src") + "\n");
        Files.writeString(site.resolve("other.pth"), "/usr/lib/somewhere-else\n");

        Path grading = project(dir.resolve("results/grade-1"), "from grading tree");
        // Before: the absolute path names the setup tree, whatever tree runs (and is gone where it is not shown).
        assertThat(importFrom(site, grading.resolve("tests"))).contains("from setup tree");

        assertThat(EditableInstalls.anyTreeRelative(List.of(site))).isFalse();
        List<String> changed = EditableInstalls.relocate(List.of(site), setupTree);
        deleteTree(setupTree);
        // resolved from the working directory at start-up: grading must not start its interpreter before the tree exists
        assertThat(EditableInstalls.anyTreeRelative(List.of(site))).isTrue();

        assertThat(changed).singleElement().asString().contains("__editable__.pkgx-1.0.pth").contains("<tree>/src");
        assertThat(Files.readString(site.resolve("other.pth"))).isEqualTo("/usr/lib/somewhere-else\n");
        // From the tree's root and from a folder below it (pytest's rootdir or a working-directory).
        assertThat(importFrom(site, grading)).contains("from grading tree");
        assertThat(importFrom(site, grading.resolve("tests"))).contains("from grading tree");
        // A tree without the project file finds nothing, and python still starts.
        assertThat(importFrom(site, Files.createDirectories(dir.resolve("elsewhere")))).contains("ModuleNotFoundError");
    }

    @Test
    void setuptoolsFinderMappingFollowsTheTreeTheInterpreterRunsIn() throws Exception {
        assumeTrue(onPath("python3"), "python3 not found on PATH");
        Path setupTree = flatProject(dir.resolve("attempt-0/workspace"), "from setup tree");
        Path site = Files.createDirectories(dir.resolve("venv/site-packages"));
        // the finder setuptools itself writes for a flat layout with listed packages (its own template)
        Process gen = new ProcessBuilder("python3", "-c", "import sys; from setuptools.command.editable_wheel import _finder_template as t; "
                + "open(sys.argv[1], 'w').write(t('pkgx-1.0', {'pkgx': sys.argv[2]}, {}))",
                site.resolve("__editable___pkgx_1_0_finder.py").toString(), setupTree.resolve("pkgx").toString()).redirectErrorStream(true).start();
        String genOut = new String(gen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gen.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assumeTrue(gen.exitValue() == 0, () -> "setuptools' editable finder template is not available here: " + genOut);
        Files.writeString(site.resolve("__editable__.pkgx-1.0.pth"), "import __editable___pkgx_1_0_finder; __editable___pkgx_1_0_finder.install()\n");

        Path grading = flatProject(dir.resolve("results/grade-1"), "from grading tree");
        assertThat(importFrom(site, grading.resolve("tests"))).contains("from setup tree");

        List<String> changed = EditableInstalls.relocate(List.of(site), setupTree);
        assertThat(changed).singleElement().asString().contains("__editable___pkgx_1_0_finder.py").contains("<tree>/pkgx");
        assertThat(importFrom(site, grading.resolve("tests"))).contains("from grading tree");
        assertThat(importFrom(site, setupTree)).contains("from setup tree");
        deleteTree(setupTree);
        assertThat(importFrom(site, grading)).contains("from grading tree");
    }

    private static Path flatProject(Path root, String marker) throws Exception {
        Files.createDirectories(root.resolve("pkgx"));
        Files.createDirectories(root.resolve("tests"));
        Files.writeString(root.resolve("pyproject.toml"), "[project]\nname = 'pkgx'\nversion = '1.0'\n");
        Files.writeString(root.resolve("pkgx/__init__.py"), "WHERE = '" + marker + "'\n");
        return root;
    }

    @Test
    void aPackageOfAMonorepoWithNoProjectFileAtItsRootFollowsTheTreeToo() throws Exception {
        // microsoft/markitdown: packages/markitdown/pyproject.toml, nothing at the root; `cd packages/markitdown && pytest`
        // imported the package from the setup workspace's path, absent in grading: 7 test modules failed to import
        assumeTrue(onPath("python3"), "python3 not found on PATH");
        Path setupTree = Files.createDirectories(dir.resolve("attempt-0/workspace"));
        project(setupTree.resolve("packages/pkgx"), "from setup tree");
        Path site = Files.createDirectories(dir.resolve("venv/site-packages"));
        Files.writeString(site.resolve("_editable_impl_pkgx.pth"), setupTree.resolve("packages/pkgx/src") + "\n");

        Path grading = Files.createDirectories(dir.resolve("results/grade-1"));
        project(grading.resolve("packages/pkgx"), "from grading tree");
        List<String> changed = EditableInstalls.relocate(List.of(site), setupTree);
        deleteTree(setupTree);
        assertThat(changed).singleElement().asString().contains("<tree>/packages/pkgx/src");
        assertThat(importFrom(site, grading.resolve("packages/pkgx"))).contains("from grading tree");
        assertThat(importFrom(site, grading.resolve("packages/pkgx/tests"))).contains("from grading tree");
        assertThat(importFrom(site, grading)).contains("from grading tree");
    }

    private static Path project(Path root, String marker) throws Exception {
        Files.createDirectories(root.resolve("src/pkgx"));
        Files.createDirectories(root.resolve("tests"));
        Files.writeString(root.resolve("pyproject.toml"), "[project]\nname = 'pkgx'\nversion = '1.0'\n");
        Files.writeString(root.resolve("src/pkgx/__init__.py"), "WHERE = '" + marker + "'\n");
        return root;
    }

    private static String importFrom(Path site, Path cwd) throws Exception {
        Process p = new ProcessBuilder("python3", "-S", "-c",
                "import site, sys; site.addsitedir(sys.argv[1]); import pkgx; print(pkgx.WHERE)", site.toString())
                .directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) return true;
        }
        return false;
    }

    private static void deleteTree(Path root) throws Exception {
        try (var s = Files.walk(root)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
