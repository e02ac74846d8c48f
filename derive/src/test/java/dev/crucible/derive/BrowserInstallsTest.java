package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A setup step that downloads a browser from its vendor's host (svelte's {@code pnpm playwright install chromium}
 * stopped setup before any vitest test ran): skipped with a message, setup goes on, the unit tests stay the test step.
 */
class BrowserInstallsTest {
    @TempDir
    Path repo;

    @AfterEach
    void noCheck() {
        SystemPackages.use(null);
    }

    private Derivation derive(String text) throws DerivationException {
        SystemPackages.use(SystemPackages::installedHere);
        return WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", text);
    }

    @Test
    void aPlaywrightBrowserDownloadIsSkippedAndSaidSoAndSetupGoesOn() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"name": "x", "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "^2", "playwright": "^1.50"}}
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: npm install
                      - run: npx playwright install chromium
                      - run: npm test
                """);
        String script = d.setupScript();
        String commands = String.join("\n", script.lines().filter(l -> !l.startsWith("#")).toList());
        assertThat(commands).doesNotContain("\nnpx playwright install chromium").contains("skipped a browser download");
        assertThat(commands).contains("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1");
        assertThat(WorkflowFixtures.step(d, 3).notes()).anyMatch(n -> n.contains("downloads a browser from its vendor's host"));
        assertThat(d.verifier().command()).contains("npm test");
        // the line that replaces the download runs and succeeds, with nothing on PATH that could download
        String line = commands.lines().filter(l -> l.contains("skipped a browser download")).findFirst().orElseThrow();
        BashRunner.Result r = BashRunner.run(repo, line, Map.of("PATH", "/usr/bin:/bin"));
        assertThat(r.exit()).isZero();
    }

    @Test
    void onlyBrowserDownloadsAreMatched() {
        assertThat(BrowserInstalls.downloadsBrowser("pnpm playwright install chromium")).isTrue();
        assertThat(BrowserInstalls.downloadsBrowser("npx playwright install --with-deps")).isTrue();
        assertThat(BrowserInstalls.downloadsBrowser("python -m playwright install")).isTrue();
        assertThat(BrowserInstalls.downloadsBrowser("sudo npx playwright install-deps")).isTrue();
        assertThat(BrowserInstalls.downloadsBrowser("npx @puppeteer/browsers install chrome@stable")).isTrue();
        assertThat(BrowserInstalls.downloadsBrowser("pnpm install")).isFalse();
        assertThat(BrowserInstalls.downloadsBrowser("npm install playwright")).as("the package, from the registry").isFalse();
        assertThat(BrowserInstalls.downloadsBrowser("pnpm test -- --project playwright")).isFalse();
        assertThat(BrowserInstalls.downloadsBrowser("npx playwright install && npm test")).as("compound: left as CI has it").isFalse();
    }
}
