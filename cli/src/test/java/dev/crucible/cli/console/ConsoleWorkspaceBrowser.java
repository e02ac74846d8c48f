package dev.crucible.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.http.ConsoleServer;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/** {@link ConsoleBrowserTest}'s steps for labels and the workspace at a step (kept apart so each file stays short). */
final class ConsoleWorkspaceBrowser {
    static final String SNAPSHOT = "hacker-a0-abc123-20261130-100000-000";
    static final String HOSTILE = "evil\u001b[31mname\u202etxt.py";

    private ConsoleWorkspaceBrowser() {}

    /** The hacker ran from a Rollout labelled team=red: the label filter, typed into the list, is in the URL and a reload keeps it. */
    static void labels(WebDriver d, WebDriverWait wait, String base, Path shots) throws Exception {
        d.get(base);
        wait.until(x -> x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 2);
        WebElement label = d.findElement(By.id("f-label"));
        label.sendKeys("team=red");
        d.findElement(By.id("count")).click(); // leaving the box is its change event
        wait.until(x -> x.getCurrentUrl().contains("label=team%3Dred") && x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 1);
        WebElement row = d.findElement(By.cssSelector("#rollouts tbody tr[data-id]"));
        assertThat(row.getAttribute("data-id")).isEqualTo("hacker");
        assertThat(row.findElements(By.cssSelector("a.label-chip")).stream().map(WebElement::getText).toList())
                .containsExactly("crucible.dev/suite=nightly", "team=red");
        shot(d, shots, "rollouts-by-label.png");
        d.navigate().refresh();
        wait.until(x -> x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 1);
        assertThat(d.findElement(By.id("f-label")).getAttribute("value")).isEqualTo("team=red");
        d.get(base + "?label=" + java.net.URLEncoder.encode("!team", StandardCharsets.UTF_8));
        wait.until(x -> x.findElements(By.cssSelector("#rollouts tbody tr[data-id]")).size() == 1
                && "honest".equals(x.findElement(By.cssSelector("#rollouts tbody tr[data-id]")).getAttribute("data-id")));
        d.get(base + "?label=" + java.net.URLEncoder.encode("te am", StandardCharsets.UTF_8));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        assertThat(d.findElement(By.id("error")).getText()).contains("label: 'te am' is not a label key");
    }

    /**
     * The workspace at a step. crucible run --snapshot-every is refused for now (CRIU cannot dump the agent's box), so
     * no run here takes a snapshot: the snapshot is made as the engine makes one (GNU tar of the hacker's attempt folder,
     * plus a file with a hostile name) and a trajectory recorded with its event, served by a second console.
     */
    static void workspace(WebDriver d, WebDriverWait wait, Path hacker, Path tmp, Path shots) throws Exception {
        Path runs = Files.createDirectories(tmp.resolve("runs-snapshots"));
        Path store = tmp.resolve("snapshot-store");
        Path ws = tmp.resolve("ws-copy");
        run("cp", "-a", hacker.toString(), ws.toString());
        Files.writeString(ws.resolve(HOSTILE), "print('\u001b[2Jcleared')\n");
        Path conftest;
        try (Stream<Path> s = Files.walk(ws)) {
            conftest = s.filter(p -> p.getFileName().toString().equals("conftest.py")).findFirst().orElseThrow();
        }
        String rel = ws.relativize(conftest).toString();
        Path snap = Files.createDirectories(store.resolve("snapshots").resolve(SNAPSHOT));
        run("tar", "--create", "--file", snap.resolve("workspace.tar").toString(), "--directory", ws.toString(), "--numeric-owner", "--sparse", ".");
        Files.writeString(snap.resolve("manifest.json"), "{\"id\":\"" + SNAPSHOT + "\",\"state\":\"COMPLETE\",\"workspaceSha256\":\"-\"}");
        Path snapped = Files.createDirectories(runs.resolve("snapped"));
        Files.copy(hacker.resolve("result.json"), snapped.resolve("result.json"));
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(snapped.resolve("trajectory"), RecorderLimits.defaults())) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 7, "command", "sh hacker.sh", "cwd", "/workspace"));
            rec.append(EventKind.FILE, null, proc, Map.of("path", "conftest.py", "op", "added", "type", "file", "size", 80, "diff", "+rep.outcome\n"));
            rec.append(EventKind.SNAPSHOT, null, null, Map.of("op", "taken", "id", SNAPSHOT, "trigger", "every 30s"));
            rec.append(EventKind.PROCESS_END, null, proc, Map.of("pid", 7, "exitStatus", 0, "durationMs", 5));
        }
        ConsoleServer server = ConsoleServer.start(runs, "127.0.0.1", 0, false, store);
        try {
            String base = server.url();
            d.get(base + "trace?rollout=snapped&event=4");
            wait.until(ExpectedConditions.elementToBeClickable(By.id("workspace-link"))).click();
            wait.until(x -> x.getCurrentUrl().contains("/workspace?rollout=snapped&event=4") && !x.findElements(By.cssSelector("a.entry")).isEmpty());
            assertThat(d.findElement(By.id("where")).getText()).contains("Step #4 of snapped", SNAPSHOT, "taken at #3", "every 30s");
            WebElement hostile = d.findElements(By.cssSelector("a.entry")).stream().filter(a -> a.getText().startsWith("evil")).findFirst().orElseThrow();
            assertThat(hostile.getText()).isEqualTo("evil\\x1b[31mname\\u{202e}txt.py");
            shot(d, shots, "workspace-listing.png");
            hostile.click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("file-content")));
            assertThat(d.findElement(By.id("file-content")).getText()).isEqualTo("print('\\x1b[2Jcleared')");
            d.get(base + "workspace?rollout=snapped&event=4&path=" + java.net.URLEncoder.encode(rel, StandardCharsets.UTF_8));
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("file-content")));
            assertThat(d.findElement(By.id("file-content")).getText()).contains("rep.outcome");
            assertThat(d.findElement(By.id("crumbs")).getText()).startsWith("workspace /");
            shot(d, shots, "workspace-file.png");
            d.get(base + "workspace?rollout=snapped&event=2");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
            assertThat(d.findElement(By.id("error")).getText()).contains("no snapshot covers step #2", "first snapshot is at #3");
            shot(d, shots, "workspace-no-snapshot.png");
        } finally {
            server.close();
        }
    }

    /**
     * The first paint of a 10,000-event trace in the browser (issue 37's "first screen within 1 s"): from navigation to
     * the timeline's rows and the first step shown, as the page's own clock and this test's see it. Printed, not
     * asserted (a figure on a shared machine); the store is the console bench's generator (the real recorder).
     */
    static void firstPaint(WebDriver d, WebDriverWait wait, Path tmp) throws Exception {
        Path runs = Files.createDirectories(tmp.resolve("runs-long"));
        dev.crucible.console.bench.BenchStore.generate(runs, 1, 1, 10_000, 42);
        String id;
        try (Stream<Path> s = Files.walk(runs)) {
            id = runs.relativize(s.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElseThrow().getParent()).toString();
        }
        ConsoleServer server = ConsoleServer.start(runs, "127.0.0.1", 0, false, null);
        try {
            for (String pass : new String[] {"cold", "warm"}) {
                long t0 = System.nanoTime();
                d.get(server.url() + "trace?rollout=" + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8) + "&event=1");
                wait.until(x -> x.findElements(By.cssSelector("#timeline li")).size() >= 100
                        && !x.findElements(By.id("step-title")).isEmpty());
                double wallMs = (System.nanoTime() - t0) / 1e6;
                Object pageMs = ((org.openqa.selenium.JavascriptExecutor) d).executeScript("return performance.now()");
                System.out.printf("browser_first_paint_%s_ms=%.1f page_clock_ms=%s events=10000%n", pass, wallMs, pageMs);
            }
        } finally {
            server.close();
        }
    }

    static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(List.of(cmd) + ": " + out).isZero();
    }

    static void shot(WebDriver d, Path shots, String name) throws Exception {
        Files.write(shots.resolve(name), ((TakesScreenshot) d).getScreenshotAs(OutputType.BYTES));
        System.out.println("screenshot: " + shots.resolve(name));
    }
}
