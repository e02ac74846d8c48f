package dev.crucible.cli.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code crucible import swebench} on three real instances, written by hand from merged fix commits of public
 * repositories (test resources swebench/: base_commit the fix's parent, test_patch its tests' diff, patch its source
 * diff, FAIL_TO_PASS failing before and passing after, PASS_TO_PASS passing both, as run): the gold patch must score 1
 * and a no-op 0 under the real {@code crucible run}. flask 3.0 and requests 2.31 take their setup from swebench 4.1.0's
 * specifications, click (which swebench has none for) from {@code crucible derive}.
 *
 * <p>Needs local clones of the repositories: {@code $CRUCIBLE_SWEBENCH_MIRRORS/OWNER+NAME/repo} (default /work/.mirror,
 * where the search tool's fetch puts them), and pip's configured index for swebench and the setup's packages; skips
 * saying which is missing.
 */
@Timeout(1200)
class SweBenchRealInstancesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path mirror(String repo) {
        String root = System.getenv().getOrDefault("CRUCIBLE_SWEBENCH_MIRRORS", "/work/.mirror");
        Path p = Path.of(root, repo.replace('/', '+'), "repo");
        return Files.isDirectory(p) ? p : Path.of(root, repo.replace('/', '+'));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "pallets__flask-5393, pallets/flask, setup from swebench 4.1.0 MAP_REPO_VERSION_TO_SPECS[\"pallets/flask\"][\"3.0\"] (Python 3.11)",
        "psf__requests-6644, psf/requests, setup from swebench 4.1.0 MAP_REPO_VERSION_TO_SPECS[\"psf/requests\"][\"2.31\"] (Python 3.9)",
        "pallets__click-3769, pallets/click, setup from crucible derive at base_commit",
    })
    void goldScoresOneAndNoOpZero(String id, String repo, String setupNote, @TempDir Path dir) throws Exception {
        Path instance = Path.of("src/test/resources/swebench", id + ".json").toAbsolutePath();
        Path clone = mirror(repo);
        String base = JSON.readTree(instance.toFile()).path("base_commit").asText();
        assumeTrue(Files.isDirectory(clone), "no local clone of " + repo + " at " + clone + " (set CRUCIBLE_SWEBENCH_MIRRORS)");
        assumeTrue(new ProcessBuilder("git", "-C", clone.toString(), "cat-file", "-e", base + "^{commit}").start().waitFor() == 0,
                clone + " lacks base_commit " + base);
        Path python = SweBenchPythons.python(SweBenchPythons.WITH_SPECS);
        assumeTrue(python != null, SweBenchPythons.missing());

        Path folder = dir.resolve("imported");
        HarborImportTest.Cli imp = HarborImportTest.crucible("import", "swebench", instance.toString(), "--repo", clone.toString(),
                "--python", python.toString(), "-o", folder.toString());
        assertThat(imp.exit()).as(imp.out() + imp.err()).isZero();
        assertThat(imp.out()).contains("note: " + setupNote);
        if (repo.equals("pallets/click")) assertThat(imp.out()).contains("note: no swebench specification: swebench 4.1.0 has no specification for pallets/click");

        JsonNode gold = run(folder, dir.resolve("gold"), "git apply " + folder.resolve(SweBenchFolder.REFERENCE));
        assertThat(gold.path("phase").asText()).as(gold.toString()).isEqualTo("Succeeded");
        assertThat(gold.path("reward").asDouble()).as(gold.toString()).isEqualTo(1.0);

        JsonNode noop = run(folder, dir.resolve("noop"), "true");
        assertThat(noop.path("reward").asDouble()).as(noop.toString()).isEqualTo(0.0);
        String firstFailToPass = JSON.readTree(JSON.readTree(instance.toFile()).path("FAIL_TO_PASS").asText()).get(0).asText();
        assertThat(noop.path("tests").path("details").toString()).as("the FAIL_TO_PASS test ran and failed")
                .contains("{\"id\":\"" + firstFailToPass + "\",\"status\":\"failed\"");
    }

    private static JsonNode run(Path folder, Path out, String agentCmd) throws Exception {
        HarborImportTest.Cli r = HarborImportTest.crucible("run", "-f", folder.resolve(SweBenchFolder.MANIFEST).toString(),
                "--agent-cmd", agentCmd, "--out", out.toString());
        assertThat(out.resolve("result.json")).as(r.out() + r.err()).exists();
        return JSON.readTree(out.resolve("result.json").toFile());
    }
}
