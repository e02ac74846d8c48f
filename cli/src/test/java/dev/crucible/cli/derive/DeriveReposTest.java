package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 point 6: {@code crucible derive --repos LIST --parallel N --baseline} over two real repositories made
 * here, one whose suite passes at HEAD (usable, per test) and one whose only test fails there (unusable, with the
 * baseline's reason); a bad list names its lines and runs nothing; a derive past the time limit is a timeout row.
 */
class DeriveReposTest {
    private static final String WORKFLOW = """
            name: CI
            on: [push]
            jobs:
              tests:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: "3.11"
                  - run: python -m unittest -v
            """;

    @TempDir
    Path dir;

    @Test
    void derivesEveryRepositoryAndPrintsARowForEach() throws Exception {
        Path good = repo("good", """
                import unittest


                class T(unittest.TestCase):
                    def test_one(self):
                        self.assertEqual(1 + 1, 2)

                    def test_two(self):
                        self.assertTrue("a".isalpha())
                """);
        Path broken = repo("broken", """
                import unittest


                class T(unittest.TestCase):
                    def test_wrong(self):
                        self.assertEqual(1 + 1, 3)
                """);
        Path list = dir.resolve("repos.txt");
        // the broken one by a path relative to the list, with its job named: both forms of a line
        Files.writeString(list, "# two repositories\n" + good + "\n\nbroken tests\n");
        Path out = dir.resolve("out");

        Result r = cli("derive", "--repos", list.toString(), "--parallel", "2", "--baseline", "-o", out.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        String goodRow = row(r.out(), good.toString());
        String brokenRow = row(r.out(), broken.toString());
        // the official CI of fb9a3e72 once saw both trivial tests fail in both baseline runs (not seen here in three runs,
        // cold and warm environment cache): the failure message carries the graded tests' messages to say why next time
        assertThat(goodRow).as(r.out() + baselineTests(out.resolve("good.baseline"))).contains("| usable |").contains("2 passToPass of 2, 0 excluded (per test)")
                .contains(".github/workflows/ci.yml job tests");
        assertThat(brokenRow).as(r.out()).contains("(job tests)").contains("| unusable |").contains("no test passes at the task commit")
                .contains("0 passToPass of 1, 1 excluded (per test)");
        assertThat(r.out()).contains("2 repositories in").contains("repositories per hour on this machine").contains("1 usable, 1 unusable");
        // setup seconds come from the baseline run's result.json: the time before its agent started (the venv made
        // before the setup script is in it), not the script's own setupMs
        JsonNode timings = new ObjectMapper().readTree(out.resolve("good.baseline/baseline-1/result.json").toFile()).path("timings");
        long toAgent = Duration.between(Instant.parse(timings.path("startedAt").asText()), Instant.parse(timings.path("runningAt").asText())).toMillis();
        assertThat(toAgent).isGreaterThan(timings.path("setupMs").asLong());
        assertThat(goodRow.split("\\|")[6].strip()).isEqualTo(RepoBatch.seconds(toAgent / 1000.0));
        assertThat(out.resolve("good.yaml")).exists();
        assertThat(Files.readString(out.resolve("good.yaml"))).contains("passToPass");
        assertThat(out.resolve("broken.log")).exists();
        assertThat(Files.readString(out.resolve("results.md"))).isEqualTo(r.out());
    }

    @Test
    void aBadListNamesItsLinesAndRunsNothing() throws Exception {
        Path good = repo("good", "import unittest\n");
        Files.createDirectories(dir.resolve("plain"));
        Path list = dir.resolve("repos.txt");
        Files.writeString(list, good + "\n" + dir.resolve("missing") + "\nplain\n");
        Path out = dir.resolve("out");

        Result r = cli("derive", "--repos", list.toString(), "-o", out.toString());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(list + ":2: " + dir.resolve("missing") + ": no such directory")
                .contains(list + ":3: " + dir.resolve("plain") + ": not a git checkout").contains("nothing was run");
        assertThat(r.out()).isEmpty();
        assertThat(out.resolve("good.log")).doesNotExist();
    }

    @Test
    void aDerivePastTheLimitIsStoppedAndIsATimeoutRow() throws Exception {
        Path slow = repo("slow", "import unittest\n");
        Path list = dir.resolve("repos.txt");
        Files.writeString(list, slow + "\n");
        Path out = dir.resolve("out");

        Result r = cli("derive", "--repos", list.toString(), "--baseline", "--repo-timeout", "2", "-o", out.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(row(r.out(), slow.toString())).as(r.out()).contains("| timeout |").contains("stopped after the 2 s limit")
                .matches(".*\\| - \\| - \\| \\d+ \\|$"); // no tests, no setup time: it was stopped
    }

    @Test
    void aDeriveStoppedInSetupLeavesNoScratchBehind() throws Exception {
        // the batch stops a derive whose baseline setup still runs (in the attempt's loop-mounted sandbox volume when
        // root): its results are kept beside the manifest and the scratch, volume included, is gone
        Path slow = repo("sleepy", "import unittest\n");
        Files.writeString(slow.resolve(".github/workflows/ci.yml"), WORKFLOW.replace("      - run: python -m unittest -v",
                "      - run: sleep 600\n      - run: python -m unittest -v"));
        git(slow, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "slow setup");
        Path list = dir.resolve("repos.txt");
        Files.writeString(list, slow + "\n");
        Path out = dir.resolve("out");

        Result r = cli("derive", "--repos", list.toString(), "--baseline", "--repo-timeout", "60", "--setup-timeout", "600",
                "-o", out.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(row(r.out(), slow.toString())).as(r.out()).contains("| timeout |").contains("baseline run 1");
        String log = Files.readString(out.resolve("sleepy.log"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(scratch (\\S+); results under").matcher(log);
        assertThat(m.find()).as(log).isTrue();
        Path scratch = Path.of(m.group(1));
        assertThat(scratch).as(log).doesNotExist();
        assertThat(Files.readString(Path.of("/proc/self/mounts"))).doesNotContain(scratch.toString());
        assertThat(out.resolve("sleepy.baseline/baseline-1/setup.log")).exists();
        assertThat(log).doesNotContain("could not be deleted");
    }

    @Test
    void aTimeoutRowSaysWhichBaselineRunAndPhaseItStoppedIn() throws IOException {
        // bat and syncthing: "stopped after the 480 s limit" named the baseline but not whether setup (crates and Go
        // modules downloading) or grading (the compile) took the time
        Path kept = dir.resolve("bat.baseline");
        List<String> log = List.of("crucible derive: baseline: running the environment twice with a no-op agent (scratch /tmp/x; results under "
                + kept + ")");
        assertThat(RepoOutcome.stoppedIn(log)).isEmpty(); // nothing kept yet: nothing said
        Files.createDirectories(kept.resolve("baseline-1"));
        Files.writeString(kept.resolve("baseline-1/setup.log"), "  Downloaded syn v2.0.117\n  Downloaded windows v0.56.0\n\n");
        assertThat(RepoOutcome.stoppedIn(log)).isEqualTo("; in baseline run 1: setup (setup.log's last line: Downloaded windows v0.56.0)");
        // the runner's limit notes say when, not where: the line before them is the one shown (lazygit's Go warm-up)
        Files.writeString(kept.resolve("baseline-1/setup.log"), "$ go test -count=1 -run ^$ ./...   (warms the build cache)\n\n[ran past 179 s]\n"
                + "[setup stopped at its limit of 180 s]\n");
        assertThat(RepoOutcome.stoppedIn(log)).isEqualTo("; in baseline run 1: setup (setup.log's last line: $ go test -count=1 -run ^$ ./...   (warms the build cache))");
        Files.writeString(kept.resolve("baseline-1/agent.log"), "");
        assertThat(RepoOutcome.stoppedIn(log)).isEqualTo("; in baseline run 1: grading (setup and the no-op agent done)");
        Files.writeString(kept.resolve("baseline-1/result.json"), "{}");
        Files.createDirectories(kept.resolve("baseline-2"));
        Files.writeString(kept.resolve("baseline-2/setup.log"), "");
        assertThat(RepoOutcome.stoppedIn(log)).isEqualTo("; in baseline run 2: setup");
        Files.writeString(kept.resolve("baseline-2/result.json"), "{\"message\": \"stopped by Ctrl-C before grading\"}");
        assertThat(RepoOutcome.stoppedIn(log)).as("bat: run 2 stopped mid-compile writes result.json too")
                .isEqualTo("; baseline run 2 was stopped by Ctrl-C before grading");
    }

    @Test
    void aSetupFailureSaysTheLogsLastLine() throws IOException {
        Path log = dir.resolve("setup.log");
        Files.writeString(log, "$ python3 -m venv venv\nbash: line 9: pnpm: command not found\n\n");
        Path wget = dir.resolve("wget.log");
        Files.write(wget, "wget: unable to resolve host address \u2018example.org\u2019 \u00ff\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(RepoOutcome.withLogLine("see " + wget)).endsWith("(last line: wget: unable to resolve host address \u2018example.org\u2019 \u00ff)");
        assertThat(RepoOutcome.withLogLine("the setup script exited with status 127; see " + log))
                .endsWith("see " + log + " (last line: bash: line 9: pnpm: command not found)");
        assertThat(RepoOutcome.withLogLine("no test passes")).isEqualTo("no test passes");
    }

    @Test
    void aRunThatReportedNoTestsSaysTheGradersReason() throws IOException {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var none = json.readTree("{\"tests\":{\"total\":0},\"verifierReport\":{\"reason\":"
                + "\"line 1 (cargo test): \\u001b[1merror\\u001b[0m: failed to load source for dependency `x11-clipboard`\\n\\nCaused by: offline\"}}");
        assertThat(RepoOutcome.graderSaid(none))
                .isEqualTo(" (grader: line 1 (cargo test): error: failed to load source for dependency `x11-clipboard` Caused by: offline)");
        assertThat(RepoOutcome.graderSaid(json.readTree("{\"tests\":{\"total\":3},\"verifierReport\":{\"reason\":\"2 failed\"}}"))).isEmpty();
    }

    @Test
    void repoAndReposAreExclusive() {
        Result r = cli("derive", "--repo", dir.toString(), "--repos", dir.resolve("x").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("one of them");
    }

    /** Each baseline run's graded tests with their status and message, and the grader's reason, for a failure's text. */
    private static String baselineTests(Path kept) throws IOException {
        StringBuilder b = new StringBuilder();
        for (String run : List.of("baseline-1", "baseline-2")) {
            Path result = kept.resolve(run).resolve("result.json");
            if (!Files.exists(result)) {
                b.append("\n").append(run).append(": no result.json");
                continue;
            }
            JsonNode r = new ObjectMapper().readTree(result.toFile());
            b.append("\n").append(run).append(": ").append(r.path("phase").asText()).append(", grader: ")
                    .append(r.path("verifierReport").path("reason").asText("-"));
            for (JsonNode t : r.path("tests").path("details")) {
                b.append("\n  ").append(t.path("id").asText()).append(' ').append(t.path("status").asText()).append(": ")
                        .append(t.path("message").asText(""));
            }
            r.path("hackFindings").forEach(f -> b.append("\n  finding ").append(f));
            // the graded runs' output (the cross-check's, when it said something): why a cross-check gave no result
            String tail = r.path("verifierReport").path("details").path("outputTail").asText("");
            b.append("\n  output tail: ").append(tail.length() > 3000 ? tail.substring(tail.length() - 3000) : tail);
        }
        return b.toString();
    }

    private static String row(String table, String repo) {
        return table.lines().filter(l -> l.contains("| " + repo + " ") || l.contains("| " + repo + " (")).findFirst().orElse("(no row for " + repo + ")");
    }

    private Path repo(String name, String test) throws IOException, InterruptedException {
        Path repo = dir.resolve(name);
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), WORKFLOW);
        Files.writeString(repo.resolve("test_it.py"), test);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        return repo;
    }

    private static void git(Path repo, String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(concat("git", args)).directory(repo.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
    }

    private static List<String> concat(String first, String... rest) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), java.util.stream.Stream.of(rest)).toList();
    }
}
