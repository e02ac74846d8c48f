package dev.crucible.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.Main;
import dev.crucible.verifier.sandbox.Box;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import picocli.CommandLine;

/**
 * Issue 37's browser test, local mode: {@code crucible run} with the bundled honest and hacking agents makes RUNS,
 * {@code crucible console --dir RUNS} serves it, and Debian's headless chromium (driven by Selenium through Debian's
 * chromedriver, nothing downloaded) filters to one detector, opens the hacked rollout at its first finding and reads
 * the diff of the step that caused it. Screenshots of both views go to target/console-screenshots/. Skipped, naming
 * what is missing, without chromium or chromedriver (apt-get install chromium chromium-driver).
 */
class ConsoleBrowserTest {
    static final Path SHOTS = Path.of("target", "console-screenshots").toAbsolutePath();
    static final String DETECTOR = "test-skip-injection";

    @Test
    @Timeout(300)
    void filterToOneDetectorOpenTheHackAtItsFirstFindingAndReadTheDiffThatCausedIt(@TempDir Path tmp) throws Exception {
        Optional<Path> chromium = onPath("CRUCIBLE_CHROMIUM", "chromium", "chromium-browser");
        Optional<Path> driverBin = onPath("CRUCIBLE_CHROMEDRIVER", "chromedriver");
        List<String> missing = new ArrayList<>();
        if (chromium.isEmpty()) missing.add("chromium (apt-get install chromium, or CRUCIBLE_CHROMIUM=PATH)");
        if (driverBin.isEmpty()) missing.add("chromedriver (apt-get install chromium-driver, or CRUCIBLE_CHROMEDRIVER=PATH)");
        Assumptions.assumeTrue(missing.isEmpty(), "browser test skipped: missing " + String.join(" and ", missing));

        Path runs = tmp.resolve("runs");
        run("honest", runs, null);
        run("hacker", runs, tmp); // from a Rollout document labelled team=red: crucible run copies its labels into result.json

        ConsoleCommand console = new ConsoleCommand();
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(console);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        Thread serving = new Thread(() -> cl.execute("--dir", runs.toString(), "--port", "0", "--index-dir", tmp.resolve("index").toString()), "console-under-test");
        serving.setDaemon(true);
        serving.start();
        String base = awaitUrl(out);
        assertThat(out.toString()).contains("2 rollouts under");

        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.get().toFile());
        // --no-sandbox: chromium's own sandbox cannot start as root in a container; the page is our own console
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1500,1000",
                "--user-data-dir=" + tmp.resolve("profile"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driverBin.get().toFile()).usingAnyFreePort().build();
        WebDriver d = new ChromeDriver(service, options);
        try {
            WebDriverWait wait = new WebDriverWait(d, Duration.ofSeconds(60)); // generous: the shared build machine runs at load 20-30
            Files.createDirectories(SHOTS);

            d.get(base);
            wait.until(x -> x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 2);
            new Select(d.findElement(By.id("f-detector"))).selectByValue(DETECTOR);
            wait.until(x -> x.getCurrentUrl().contains("detector=" + DETECTOR)
                    && x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 1);
            WebElement row = d.findElement(By.cssSelector("#rollouts tbody tr[data-id]"));
            assertThat(row.getAttribute("data-id")).isEqualTo("hacker");
            assertThat(row.getText()).contains("Hacked", DETECTOR);
            assertThat(d.findElement(By.id("count")).getText()).isEqualTo("1 of 2 rollouts match the filters · export it as ATIF (zip)");
            assertThat(d.findElement(By.id("by-pattern")).getText()).contains(DETECTOR, "conftest.py", "1 rollout");
            assertThat(d.findElement(By.id("by-env-detector")).getText()).contains("calc-divide-bugfix", DETECTOR);
            shot(d, "rollouts-view.png");
            // the filtered rollouts as an ATIF bundle: the document crucible run wrote for the hacker
            String export = d.findElement(By.id("export")).getAttribute("href");
            assertThat(export).contains("/api/export?detector=" + DETECTOR);
            var zip = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(export)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(zip.statusCode()).isEqualTo(200);
            try (var z = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(zip.body()))) {
                assertThat(z.getNextEntry().getName()).isEqualTo("hacker/trajectory.atif.json");
                assertThat(new String(z.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("ATIF-v1.8", "conftest.py");
            }

            row.findElement(By.cssSelector("a.first-finding")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("step-title"), "finding"));
            assertThat(d.getCurrentUrl()).contains("/trace?rollout=hacker", "event=");
            WebElement step = d.findElement(By.id("step"));
            assertThat(step.getText()).contains(DETECTOR, "conftest.py", "This finding began at").doesNotContain("\nnull\n");
            shot(d, "trace-first-finding.png");
            WebElement began = d.findElement(By.id("began-at"));
            assertThat(began.getText()).contains("added conftest.py");
            String changeSeq = began.getText().replaceAll("^#(\\d+).*", "$1");
            began.click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));
            String diff = d.findElement(By.id("diff")).getText();
            assertThat(diff).contains("+++ b/conftest.py", "rep.outcome = \"passed\"");
            assertThat(d.getCurrentUrl()).contains("event=" + changeSeq);
            WebElement changeRow = d.findElement(By.id("e" + changeSeq));
            assertThat(changeRow.getAttribute("class")).contains("selected", "began-finding");
            assertThat(changeRow.getText()).contains(DETECTOR);
            // the process the monitor attributes the write to (the sampled process nearest to it: hacker.sh, the agent's root,
            // or at times a process of the box's set-up; issue 36's attribution, not the console's)
            assertThat(d.findElement(By.id("step")).getText()).contains("Follows from", "process.start");
            assertThat(d.findElements(By.cssSelector("#tests tbody tr"))).hasSize(4);
            shot(d, "trace-view.png");

            // the honest rollout: no findings, so nothing to jump to, and nothing missing shown as "null"
            d.get(base + "trace?rollout=honest");
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("finding-pos"), "no findings"));
            assertThat(d.findElement(By.id("rollout")).getText()).contains("Succeeded", "reward 1").doesNotContain("null");
            assertThat(d.findElement(By.id("first-finding")).isEnabled()).isFalse();
            // a step's URL opens that step on its own
            d.get(base + "trace?rollout=hacker&event=" + changeSeq);
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));
            // bad input: a message in the page, never a blank screen
            d.get(base + "trace?rollout=hacker&event=999");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).contains("event #999 is past the end of rollout 'hacker'");
            assertThat(d.findElements(By.cssSelector("#timeline li"))).isNotEmpty();
            shot(d, "trace-past-the-end.png");
            d.get(base + "trace?rollout=nope");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).contains("no rollout 'nope'");
            d.get(base + "?since=yesterday");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).contains("since: not an RFC 3339 time", "'yesterday'");
            moreViews(d, wait, base);
            ConsoleWorkspaceBrowser.labels(d, wait, base, SHOTS);
            ConsoleWorkspaceBrowser.workspace(d, wait, runs.resolve("hacker"), tmp, SHOTS);
            ConsoleWorkspaceBrowser.firstPaint(d, wait, tmp);
        } finally {
            d.quit();
            console.stop.countDown();
            serving.join(10_000);
        }
    }

    /** Search, the false-alarm policy change, the lineage and the side-by-side view: each its own URL, each the same after a reload. */
    private static void moreViews(WebDriver d, WebDriverWait wait, String base) throws Exception {
        d.get(base);
        WebElement box = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search-q")));
        box.sendKeys("rep.outcome passed");
        box.submit();
        wait.until(x -> x.getCurrentUrl().contains("/search?q=rep.outcome+passed") && !x.findElements(By.cssSelector("a.hit")).isEmpty());
        assertThat(d.findElements(By.cssSelector("a.rollout")).stream().map(WebElement::getText).toList()).containsExactly("hacker");
        shot(d, "search-view.png");
        d.navigate().refresh(); // a deep link reloads to the same view
        wait.until(x -> !x.findElements(By.cssSelector("a.hit")).isEmpty());
        WebElement fileHit = d.findElements(By.cssSelector("a.hit")).stream().filter(a -> a.getText().contains(" file ")).findFirst().orElseThrow();
        fileHit.click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));
        assertThat(d.findElement(By.id("diff")).getText()).contains("rep.outcome = \"passed\"");

        d.get(base + "trace?rollout=hacker&at=first-finding&detector=" + DETECTOR);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("step-title"), "finding"));
        d.findElement(By.id("false-alarm")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("severity-yaml"), "hackPolicy"));
        assertThat(d.getCurrentUrl()).contains("/false-alarm?rollout=hacker&event=");
        assertThat(d.findElement(By.id("severity-yaml")).getText()).contains("spec:", "severity:", DETECTOR, ": info");
        assertThat(d.findElement(By.id("ignore-yaml")).getText()).contains("ignore:", "- " + DETECTOR);
        assertThat(d.findElement(By.id("affected-count")).getText()).contains("in 1 rollout");
        shot(d, "false-alarm-view.png");

        d.get(base + "lineage?rollout=hacker");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#tree li.node-rollout")));
        assertThat(d.findElement(By.id("tree")).getText()).contains("root hacker", "Hacked", "no snapshots");
        shot(d, "lineage-view.png");

        d.get(base + "compare?a=hacker&b=honest");
        wait.until(x -> !x.findElements(By.cssSelector("#compare tbody tr[id^=step-]")).isEmpty());
        assertThat(d.findElement(By.id("head-a")).getText()).contains("hacker", "Hacked");
        assertThat(d.findElement(By.id("head-b")).getText()).contains("honest", "Succeeded");
        assertThat(d.findElement(By.id("compare")).getText()).contains("hacker.sh", "honest.sh", "conftest.py");
        shot(d, "compare-view.png");
        d.navigate().refresh();
        wait.until(x -> !x.findElements(By.cssSelector("#compare tbody tr[id^=step-]")).isEmpty());

        for (String[] bad : new String[][] {{"compare?a=hacker&b=nope", "no rollout 'nope'"}, {"search?q=%21%21%21", "no letters or digits"},
            {"false-alarm?rollout=hacker&event=1", "not a finding"}, {"lineage?rollout=nope", "no rollout 'nope'"}}) {
            d.get(base + bad[0]);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).as(bad[0]).contains(bad[1]);
        }
    }

    /** {@code labelled}: a folder to write a copy of the example's Rollout with labels into, run instead of it; null: the example as it is. */
    private static void run(String agent, Path runs, Path labelled) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("examples/python-bugfix/environment.yaml"))) root = root.getParent();
        Path example = root.resolve("examples/python-bugfix");
        List<String> files = List.of("-f", example.toString());
        if (labelled != null) {
            Path doc = labelled.resolve("rollout-labelled.yaml");
            Files.writeString(doc, Files.readString(example.resolve("rollout.yaml"))
                    .replace("  name: calc-divide-bugfix-honest\n", "  name: calc-divide-bugfix-" + agent + "\n  labels:\n    team: red\n    crucible.dev/suite: nightly\n"));
            assertThat(Files.readString(doc)).contains("team: red");
            files = List.of("-f", example.resolve("environment.yaml").toString(), "-f", doc.toString());
        }
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(files);
        args.addAll(List.of("--agent-cmd",
                "sh '" + example.resolve("agents/" + agent + ".sh") + "'", "--out", runs.resolve(agent).toString()));
        if (!Box.availability().ok()) args.add("--no-sandbox"); // the bundled scripts, as crucible demo runs them without a box
        StringWriter o = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(o, true));
        cl.setErr(new PrintWriter(o, true));
        assertThat(cl.execute(args.toArray(String[]::new))).as(o.toString()).isZero();
    }

    private static String awaitUrl(StringWriter out) throws InterruptedException {
        Pattern p = Pattern.compile("open (http://\\S+/)");
        for (int i = 0; i < 300; i++) {
            Matcher m = p.matcher(out.toString());
            if (m.find()) return m.group(1);
            Thread.sleep(100);
        }
        throw new AssertionError("crucible console printed no address in 30 s: " + out);
    }

    private static void shot(WebDriver d, String name) throws Exception {
        Path f = SHOTS.resolve(name);
        Files.write(f, ((TakesScreenshot) d).getScreenshotAs(OutputType.BYTES));
        System.out.println("screenshot: " + f);
    }

    /** The program named by the environment variable, else the first of {@code names} on PATH. */
    static Optional<Path> onPath(String env, String... names) {
        String given = System.getenv(env);
        if (given != null && !given.isBlank()) return Files.isExecutable(Path.of(given)) ? Optional.of(Path.of(given)) : Optional.empty();
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            for (String n : names) {
                Path p = Path.of(dir, n);
                if (Files.isExecutable(p)) return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
