package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.JUnitXmlParser;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * JUnit XML reports: Maven Surefire ({@code mvn}), Gradle ({@code gradle}, {@code gradlew}) and any
 * runner named {@code junit-xml} with a {@code reportPath} glob. Reports matching the glob in the
 * grading tree are deleted before the run (a report the agent left behind never counts). Maven is
 * asked to write its reports into the grader's fresh folder ({@code -Dsurefire.reportsDirectory}) and
 * the XML is checked against Surefire's own per-class "Tests run:" lines; Gradle prints no per-test
 * counts, so its files are checked against its exit code only. Ids are {@code classname::name}.
 */
public final class JUnitReportRunner implements TestRunner {
    /** Surefire's per-class line: "Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! -- in x.FooTest". */
    static final Pattern SUREFIRE = Pattern.compile("Tests run: (\\d+), Failures: (\\d+), Errors: (\\d+), Skipped: (\\d+).*? -?- in \\S+");
    static final String MAVEN_GLOB = "**/target/surefire-reports/TEST-*.xml";
    static final String GRADLE_GLOB = "**/build/test-results/**/TEST-*.xml";

    private final String name;
    private final String glob;

    public JUnitReportRunner(String name, String glob) {
        this.name = name;
        this.glob = glob;
    }

    @Override public String name() { return name; }

    @Override
    public boolean matches(TestCommand c) {
        String p = c.program();
        return switch (name) {
            case "maven" -> p.equals("mvn") || p.equals("mvnw");
            case "gradle" -> p.equals("gradle") || p.equals("gradlew");
            default -> false;
        };
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        deleteStale(root);
        if (!name.equals("maven")) return new Plan(c.with(c.words()), Map.of());
        List<String> w = new ArrayList<>(c.words());
        w.add(1, "-Dsurefire.reportsDirectory=" + out.resolve("surefire-reports"));
        if (!w.contains("-B") && !w.contains("--batch-mode")) w.add(1, "-B");
        return new Plan(c.with(w), Map.of());
    }

    /** For a junit-xml verifier whose command is not understood: run it as written. */
    public Plan planUnchanged(String command, Path root) {
        deleteStale(root);
        return new Plan(command, Map.of());
    }

    @Override
    public String guarantee() {
        return name.equals("maven")
                ? "maven: Surefire's XML in the grader's fresh folder (written by the graded process), checked against Surefire's per-class counts on stdout and the exit code"
                : name + ": JUnit XML written by the graded process into the grading tree (stale reports deleted first), checked against the exit code only";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        List<Path> files = new ArrayList<>(matching(out.resolve("surefire-reports"), "TEST-*.xml"));
        if (files.isEmpty()) files.addAll(matching(root, glob));
        if (files.isEmpty()) return Report.error("no JUnit report matching " + glob + " after the run (exit " + run.exitCode() + "): " + ReportChecks.clip(run.combined()));
        List<TestCase> tests = new ArrayList<>();
        List<IntegrityFinding> findings = new ArrayList<>();
        for (Path f : files) {
            try {
                if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) throw new IOException("not a regular file");
                tests.addAll(JUnitXmlParser.parse(f, false));
            } catch (IOException | RuntimeException e) {
                findings.add(IntegrityFinding.tampering("high", root.relativize(f.toAbsolutePath()).toString(), "JUnit report unreadable: " + e.getMessage()));
            }
        }
        if (name.equals("maven")) findings.addAll(surefireCounts(run, tests));
        findings.addAll(ReportChecks.exitCode(name, run, tests));
        return new Report(ReportChecks.uniqueIds(tests), findings, null, null);
    }

    static List<IntegrityFinding> surefireCounts(ExecResult run, List<TestCase> tests) {
        int[] sum = new int[4];
        boolean any = false;
        for (String line : (run.stdout() + "\n" + (run.stderr() == null ? "" : run.stderr())).split("\n")) {
            Matcher m = SUREFIRE.matcher(line);
            if (!m.find()) continue;
            any = true;
            for (int i = 0; i < 4; i++) sum[i] += Integer.parseInt(m.group(i + 1));
        }
        var c = ReportChecks.counts(tests);
        Map<String, Integer> report = Map.of("tests", tests.size(), "failures", c.getOrDefault(TestStatus.FAILED, 0),
                "errors", c.getOrDefault(TestStatus.ERROR, 0), "skipped", c.getOrDefault(TestStatus.SKIPPED, 0));
        return ReportChecks.compareCounts("maven", report, any ? Map.of("tests", sum[0], "failures", sum[1], "errors", sum[2], "skipped", sum[3]) : null);
    }

    private void deleteStale(Path root) {
        for (Path f : matching(root, glob)) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove a stale report " + f, e);
            }
        }
    }

    /** Files under {@code dir} matching a glob relative to it; {@code **}/x also matches x at the top. */
    static List<Path> matching(Path dir, String glob) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return List.of();
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        PathMatcher top = glob.startsWith("**/") ? FileSystems.getDefault().getPathMatcher("glob:" + glob.substring(3)) : m;
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> {
                        Path rel = dir.relativize(p);
                        return m.matches(rel) || top.matches(rel);
                    })
                    .filter(p -> !p.toString().contains("/node_modules/") && !p.toString().contains("/.git/"))
                    .sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
