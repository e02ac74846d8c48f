package dev.crucible.tracestore;

import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static dev.crucible.tracestore.TwoTeamsCluster.B;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.cluster.ClusterConsoleServer;
import dev.crucible.console.cluster.ClusterSource;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
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

/**
 * The console's cluster mode in a browser (issue 37), on the API server tier with this trace store: Debian's headless
 * chromium (Selenium through Debian's chromedriver, nothing downloaded) logs in with alice's token (team A), filters
 * to one detector, opens the hacked rollout at its first finding and reads the diff of the step that caused it, from
 * trajectories the real {@link TrajectoryRecorder} wrote and the store holds; a namespace alice may not list is shown
 * refused. Then bob (team B) sees nothing of team A, and a direct link to A's rollout is a refusal in the page.
 * Screenshots: target/console-cluster-screenshots/. Skipped, naming what is missing, without chromium/chromedriver.
 */
class ConsoleClusterBrowserTest {
    static final Path SHOTS = Path.of("target", "console-cluster-screenshots").toAbsolutePath();
    static final String DETECTOR = "test-skip-injection";
    /** Over the recorder's 4 KiB inline limit, so the diff is a blob: the step view reads it back from the store. */
    static final String DIFF = "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,122 @@\n+def pytest_runtest_makereport(item, call):\n"
            + "+        rep.outcome = \"passed\"\n" + "+# padding the agent wrote to bury the line above\n".repeat(120);

    @Test
    @Timeout(300)
    void aliceFindsTheHackAndReadsItsDiffBobSeesNothingOfTeamA(@TempDir Path tmp) throws Exception {
        Optional<Path> chromium = onPath("CRUCIBLE_CHROMIUM", "chromium", "chromium-browser");
        Optional<Path> driverBin = onPath("CRUCIBLE_CHROMEDRIVER", "chromedriver");
        List<String> missing = new ArrayList<>();
        if (chromium.isEmpty()) missing.add("chromium (apt-get install chromium, or CRUCIBLE_CHROMIUM=PATH)");
        if (driverBin.isEmpty()) missing.add("chromedriver (apt-get install chromium-driver, or CRUCIBLE_CHROMEDRIVER=PATH)");
        Assumptions.assumeTrue(missing.isEmpty(), "browser test skipped: missing " + String.join(" and ", missing));

        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        StoreSettings s = StoreSettings.defaults(tmp.resolve("store")).withPort(0);
        try (var storeClient = k8s.storeClient();
             TraceService service = new TraceService(s, storeClient, Clock.systemUTC());
             TraceStoreServer store = TraceStoreServer.start(s, service, new KubeAuth(storeClient, Duration.ofSeconds(1),
                     s.writerServiceAccount(), s.writerAudience()))) {
            StoreHttp storeHttp = new StoreHttp(store.port());
            // scripted Rollouts: team A an honest and a hacked one, team B a hacked one; each trajectory recorded and shipped
            scripted(k8s, storeHttp, tmp, A, "cb-honest", false);
            scripted(k8s, storeHttp, tmp, A, "cb-hacked", true);
            scripted(k8s, storeHttp, tmp, B, "cb-b-hacked", true);
            Config cfg = Config.fromKubeconfig(k8s.cluster.readKubeconfig());
            byte[] ca = cfg.getCaCertData() != null ? Base64.getDecoder().decode(cfg.getCaCertData())
                    : Files.readAllBytes(Path.of(cfg.getCaCertFile()));
            try (ClusterConsoleServer console = ClusterConsoleServer.start(new ClusterSource(URI.create(cfg.getMasterUrl().replaceAll("/$", "")),
                    ca, URI.create("http://127.0.0.1:" + store.port())), "127.0.0.1", 0)) {
                browse(k8s, "http://127.0.0.1:" + console.port() + "/", k8s.token(A, "alice", null), k8s.token(B, "bob", null),
                        chromium.get(), driverBin.get(), tmp);
            }
        }
    }

    private static void browse(TwoTeamsCluster k8s, String base, String alice, String bob, Path chromium, Path driverBin, Path tmp) throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        // --no-sandbox: chromium's own sandbox cannot start as root in a container; the page is our own console
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1500,1000",
                "--user-data-dir=" + tmp.resolve("profile"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driverBin.toFile()).usingAnyFreePort().build();
        WebDriver d = new ChromeDriver(service, options);
        try {
            WebDriverWait wait = new WebDriverWait(d, Duration.ofSeconds(60)); // generous: the shared build machine is busy
            Files.createDirectories(SHOTS);

            // no token: the page asks for one (the API answered 401), it shows no rollout
            d.get(base);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login")));
            assertThat(d.findElement(By.id("login-why")).getText()).contains("no bearer token");
            assertThat(d.findElements(By.cssSelector("#rollouts tbody tr[data-id]"))).isEmpty();
            assertThat(d.findElement(By.id("error")).isDisplayed()).as("the form says why; no second banner").isFalse();
            shot(d, "cluster-login.png");
            logIn(d, wait, alice);

            // alice: team A's rollouts only; filter to one detector: the hacked one stays, the honest one goes
            wait.until(x -> !x.findElements(By.cssSelector("#rollouts tbody tr[data-id='" + A + "/cb-hacked']")).isEmpty());
            assertThat(ids(d)).contains(A + "/cb-honest").allMatch(id -> id.startsWith(A + "/"));
            assertThat(d.findElement(By.id("dir")).getText()).contains("cluster", A).doesNotContain(B);
            new Select(d.findElement(By.id("f-detector"))).selectByValue(DETECTOR);
            wait.until(x -> x.getCurrentUrl().contains("detector=" + DETECTOR) && !ids(x).contains(A + "/cb-honest"));
            assertThat(ids(d)).contains(A + "/cb-hacked");
            assertThat(d.findElement(By.id("by-env-detector")).getText()).contains("calc-divide-bugfix", DETECTOR);
            shot(d, "cluster-rollouts-alice-detector.png");

            WebElement row = d.findElement(By.cssSelector("#rollouts tbody tr[data-id='" + A + "/cb-hacked']"));
            assertThat(row.getText()).contains("Hacked", DETECTOR);
            row.findElement(By.cssSelector("a.first-finding")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("step-title"), "finding"));
            assertThat(d.getCurrentUrl()).contains("/trace?rollout=" + A + "%2Fcb-hacked", "event=");
            assertThat(d.findElement(By.id("step")).getText()).contains(DETECTOR, "conftest.py", "This finding began at");
            shot(d, "cluster-trace-first-finding.png");
            WebElement began = d.findElement(By.id("began-at"));
            assertThat(began.getText()).contains("added conftest.py");
            began.click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));
            // the diff is a blob the store holds: read back through the console with alice's token
            assertThat(d.findElement(By.id("diff")).getText()).contains("+++ b/conftest.py", "rep.outcome = \"passed\"");
            // the whole diff, not the head the event kept inline: the blob came back, and no problem names it missing
            String whole = d.findElement(By.id("diff")).getAttribute("textContent");
            assertThat(whole.split("bury the line above", -1)).as("padding lines in the diff shown").hasSize(121);
            assertThat(d.findElements(By.cssSelector("#step ul.problems"))).as("problems shown with the step").isEmpty();
            assertThat(d.findElement(By.id("step")).getText()).contains("Follows from", "process.start", "hacker.sh");
            shot(d, "cluster-trace-diff.png");
            d.navigate().refresh(); // the step's URL is the view
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));

            // revert with a patch from the step that caused the finding: a branch Rollout made on the API server with alice's token
            String causeUrl = d.getCurrentUrl();
            String branch = revert(d, wait, "conftest.py", "# the console's revert: no report hook\n");
            assertThat(d.findElement(By.id("revert-snapshot")).getText()).isEqualTo("cb-hacked-s1");
            assertThat(d.findElement(By.id("revert-done")).getText()).contains("the last snapshot the trajectory records at or before");
            shot(d, "cluster-trace-revert-created.png");
            var made = k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(A).withName(branch).get();
            assertThat(made).as("the branch exists on the API server: " + branch).isNotNull();
            @SuppressWarnings("unchecked") Map<String, Object> spec = (Map<String, Object>) made.getAdditionalProperties().get("spec");
            assertThat(spec.get("restoreFrom")).isEqualTo(Map.of("snapshotName", "cb-hacked-s1"));
            assertThat(spec.get("patches")).isEqualTo(List.of(Map.of("path", "conftest.py", "content", "# the console's revert: no report hook\n")));
            assertThat(spec.get("environmentRef")).isEqualTo(Map.of("name", "calc-divide-bugfix"));
            assertThat(made.getMetadata().getLabels()).containsEntry("crucible.dev/reverts", "1").containsEntry("crucible.dev/revert-of", "cb-hacked")
                    .containsEntry("team", A);
            // the branch is listed for alice at once (live, no trajectory stored yet)
            d.get(base);
            wait.until(x -> ids(x).contains(A + "/" + branch));
            shot(d, "cluster-rollouts-alice-with-branch.png");
            d.get(causeUrl);
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));

            // the views beyond list and trace, over the cluster with alice's token: search, lineage, side by side, false alarm
            d.findElement(By.id("search-q")).sendKeys("rep.outcome");
            d.findElement(By.cssSelector("header .search-box button")).click();
            wait.until(x -> x.findElement(By.id("results")).getText().contains("cb-hacked"));
            assertThat(d.findElement(By.id("results")).getText()).doesNotContain("cb-b-hacked", B);
            shot(d, "cluster-search.png");
            d.get(base + "lineage?rollout=" + A + "%2Fcb-hacked");
            wait.until(x -> x.findElement(By.id("tree")).getText().contains(branch));
            assertThat(d.findElement(By.id("tree")).getText()).contains("cb-hacked-s1", A + "/cb-hacked");
            shot(d, "cluster-lineage.png");
            d.get(base + "compare?a=" + A + "%2Fcb-hacked&b=" + A + "%2Fcb-honest");
            wait.until(x -> !x.findElements(By.cssSelector("#compare tbody tr")).isEmpty());
            assertThat(d.findElement(By.id("compare")).getText()).contains("hacker.sh", "honest.sh");
            shot(d, "cluster-compare.png");
            d.get(base + "false-alarm?rollout=" + A + "%2Fcb-hacked&event=5");
            wait.until(x -> x.findElement(By.id("severity-yaml")).getText().contains(DETECTOR));
            shot(d, "cluster-false-alarm.png");

            // a namespace alice asks for but may not list: named as refused, not an empty list
            d.get(base + "?namespace=" + B);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("refused")));
            assertThat(d.findElement(By.id("refused")).getText()).contains("Refused", B);
            assertThat(ids(d)).allMatch(id -> id.startsWith(A + "/"));
            shot(d, "cluster-rollouts-alice-refused-team-b.png");

            // bob, in a fresh session: team B's rollouts, nothing of team A
            d.findElement(By.id("logout")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login")));
            logIn(d, wait, bob);
            wait.until(x -> ids(x).contains(B + "/cb-b-hacked"));
            assertThat(ids(d)).allMatch(id -> id.startsWith(B + "/"));
            assertThat(d.findElement(By.tagName("body")).getText()).doesNotContain(A, "cb-hacked\n", "cb-honest");
            shot(d, "cluster-rollouts-bob.png");
            // a direct link to A's rollout: a refusal in the page, nothing of the trace
            d.get(base + "trace?rollout=" + A + "%2Fcb-hacked&at=first-finding");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).contains("you may not see rollout " + A + "/cb-hacked", "namespace " + A);
            assertThat(d.findElement(By.tagName("body")).getText()).doesNotContain("conftest.py", "hacker.sh");
            assertThat(d.findElements(By.cssSelector("#timeline li"))).isEmpty();
            // a refusal still marks the page as the cluster console: a log-out link (and the search box, searching bob's own)
            assertThat(d.findElement(By.cssSelector("header .search-box")).isDisplayed()).isTrue();
            assertThat(d.findElement(By.id("logout")).isDisplayed()).isTrue();
            shot(d, "cluster-trace-bob-refused.png");

            // bob may read team B's hacked rollout but not create Rollouts there: the revert is refused, named, nothing made
            d.get(base + "trace?rollout=" + B + "%2Fcb-b-hacked&at=first-finding");
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("step-title"), "finding"));
            d.findElement(By.id("began-at")).click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("diff")));
            int before = k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(B).list().getItems().size();
            d.findElement(By.cssSelector("#revert summary")).click();
            d.findElement(By.id("revert-path")).sendKeys("conftest.py");
            d.findElement(By.id("revert-submit")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("revert-error")));
            assertThat(d.findElement(By.id("revert-error")).getText()).contains("you may not create Rollouts in namespace " + B, "create on rollouts.crucible.dev");
            assertThat(k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(B).list().getItems()).hasSize(before);
            shot(d, "cluster-trace-bob-revert-refused.png");
        } finally {
            d.quit();
        }
    }

    /** Opens the step's revert form, gives one file's new content, submits; the branch's name once the page says it is made. */
    private static String revert(WebDriver d, WebDriverWait wait, String path, String content) {
        d.findElement(By.cssSelector("#revert summary")).click();
        d.findElement(By.id("revert-path")).sendKeys(path);
        ((JavascriptExecutor) d).executeScript("arguments[0].value = arguments[1];", d.findElement(By.id("revert-content")), content);
        d.findElement(By.id("revert-submit")).click();
        wait.until(x -> !x.findElements(By.id("revert-done")).isEmpty() || !x.findElements(By.id("revert-error")).isEmpty());
        assertThat(d.findElements(By.id("revert-error"))).as("revert refused: %s", d.findElements(By.id("revert-error")).stream()
                .map(WebElement::getText).toList()).isEmpty();
        String id = d.findElement(By.id("revert-branch")).getText();
        assertThat(id).startsWith(A + "/cb-hacked-r");
        return id.substring(id.indexOf('/') + 1);
    }

    private static void logIn(WebDriver d, WebDriverWait wait, String token) {
        // the token is long: set it as a value rather than typing a thousand keys on a busy machine
        WebElement input = d.findElement(By.id("login-token"));
        ((JavascriptExecutor) d).executeScript("arguments[0].value = arguments[1];", input, token);
        d.findElement(By.id("login-submit")).click();
        wait.until(x -> x.findElements(By.id("login")).isEmpty() && !x.findElements(By.id("logout")).isEmpty());
    }

    private static List<String> ids(WebDriver d) {
        // in one script: the list is re-rendered when a filter changes, and a row found before may be gone when read
        Object ids = ((JavascriptExecutor) d).executeScript(
                "return Array.from(document.querySelectorAll('#rollouts tbody tr[data-id]'), e => e.dataset.id);");
        return ((List<?>) ids).stream().map(String::valueOf).toList();
    }

    /** A Rollout with its status as the operator leaves it, and its trajectory recorded here and shipped to the store. */
    private static void scripted(TwoTeamsCluster k8s, StoreHttp store, Path tmp, String ns, String name, boolean hacked) throws Exception {
        var r = k8s.rollout(ns, name, "calc-divide-bugfix", Map.of("team", ns));
        Map<String, Object> finding = Map.of("detector", DETECTOR, "rule", "report-rewrite", "severity", "critical", "path", "conftest.py",
                "evidence", "test report outcome rewritten to passed: rep.outcome = \"passed\"", "action", "flag");
        r.setAdditionalProperty("status", hacked
                ? Map.of("phase", "Hacked", "reason", "RewardHackDetected", "reward", 0.0, "hackFindings", List.of(finding),
                        "tests", Map.of("passed", 1, "failed", 1, "skipped", 0, "total", 2))
                : Map.of("phase", "Succeeded", "reason", "Verified", "reward", 1.0, "tests", Map.of("passed", 2, "failed", 0, "skipped", 0, "total", 2)));
        k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(ns).resource(r).updateStatus();

        Path dir = tmp.resolve("recorded").resolve(ns).resolve(name);
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults())) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 100, "command", "sh agents/" + (hacked ? "hacker" : "honest") + ".sh", "cwd", "/workspace"));
            if (hacked) {
                // a periodic snapshot before the hack, as the operator records it: the revert's starting point
                rec.append(EventKind.SNAPSHOT, null, null, Map.of("op", "taken", "id", name + "-s1", "trigger", "periodic"));
                k8s.readySnapshot(ns, name + "-s1", name, java.time.Instant.now());
            }
            rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout+stderr", "text", "collected 2 items\n" + "x".repeat(6000) + "\n"));
            long change = rec.append(EventKind.FILE, null, proc, hacked
                    ? Map.of("path", "conftest.py", "op", "added", "type", "file", "size", 80, "diff", DIFF)
                    : Map.of("path", "calc/ops.py", "op", "modified", "type", "file", "size", 80,
                            "diff", "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1 +1 @@\n-    return abs(a) / abs(b)\n+    return a / b\n"));
            if (hacked) rec.append(EventKind.FINDING, null, change, finding);
            rec.append(EventKind.PROCESS_END, null, proc, Map.of("pid", 100, "exitStatus", 0, "durationMs", 230));
            rec.append(EventKind.GRADING, null, null, Map.of("command", "python3 -m pytest -q", "verdict", hacked ? "fail" : "pass"));
            rec.append(EventKind.OUTCOME, null, null, Map.of("phase", hacked ? "Hacked" : "Succeeded", "reward", hacked ? 0.0 : 1.0));
        }
        String writer = k8s.writer(ns);
        List<Path> blobs;
        try (Stream<Path> w = Files.walk(dir.resolve("blobs"))) {
            blobs = w.filter(Files::isRegularFile).toList();
        }
        assertThat(blobs).as("the recorder keeps the long output and the diff as blobs? %s", dir).isNotEmpty();
        for (Path b : blobs) {
            StoreHttp.Reply put = store.put(rollout(ns, name) + "/blobs/sha256/" + b.getFileName(), writer, Files.readAllBytes(b));
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
        }
        List<Path> segments;
        try (Stream<Path> w = Files.list(dir.resolve("segments"))) {
            segments = w.sorted().toList();
        }
        for (Path seg : segments) {
            int n = Integer.parseInt(seg.getFileName().toString().replace(".jsonl", ""));
            StoreHttp.Reply put = store.put(rollout(ns, name) + "/segments/" + n, writer, Files.readAllBytes(seg));
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
        }
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
