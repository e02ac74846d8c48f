package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Per-test results from runners a wrapper starts ({@code make test}, {@code ./run-tests.sh}, {@code tox}, an npm
 * script that runs another): the grader does not rewrite the wrapper, it instruments the runners wherever the
 * wrapper ends up calling them, through the environment, into a folder it made fresh for the run:
 * <ul>
 * <li>{@code go test}: a {@code go} first on PATH ({@code crucible-go-shim.sh}) adds {@code -json} to {@code go test}
 * only and keeps the event stream and exit status of each run; other go commands run unchanged;</li>
 * <li>{@code node --test}, jest, vitest, mocha: {@code NODE_OPTIONS} loads {@code crucible-node-hook.cjs}, which
 * asks the runner's main process for its report (as the direct runners do) and keeps its printed summary and
 * exit code; {@code node --test} gets its TAP destination from {@code NODE_OPTIONS} itself;</li>
 * <li>unittest (a script's unittest.main(), {@code python -m unittest}, Django's runner): a {@code sitecustomize} on
 * {@code PYTHONPATH} ({@code crucible-python-hook.py}) records what unittest's TextTestResult sees, with the run's count;</li>
 * <li>cargo's libtest: its human lines in the command's own output (stable libtest has no machine format).</li>
 * </ul>
 * Each run's report is read by its runner's own reader and checked against that run's summary and exit code.
 * pytest is instrumented by the caller (the grader's reporter through {@code PYTEST_ADDOPTS}).
 */
public final class WrappedRunners {
    static final String GO_SHIM = "crucible-go-shim.sh";
    static final String NODE_HOOK = "crucible-node-hook.cjs";
    static final String PYTHON_HOOK = "crucible-python-hook.py";
    private static final byte[] GO_SOURCE = load(GO_SHIM);
    private static final byte[] NODE_SOURCE = load(NODE_HOOK);
    private static final byte[] PYTHON_SOURCE = load(PYTHON_HOOK);

    private WrappedRunners() {}

    /** What the runners reported: their tests, findings, the runners that ran, and reports that could not be read. */
    public record Report(List<TestCase> tests, List<IntegrityFinding> findings, List<String> runners, List<String> errors) {}

    /**
     * Writes the shim and the hook into {@code out} (a folder the grader made just now) and returns the
     * variables to give the command, built on {@code env} (PATH, NODE_OPTIONS extended, not replaced).
     */
    public static Map<String, String> prepare(Path out, Map<String, String> env) {
        Map<String, String> add = new LinkedHashMap<>();
        try {
            // always: the wrapper may put go on PATH itself; the shim finds the real one when it runs
            String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
            {
                Path bin = Files.createDirectory(out.resolve("bin"));
                Path shim = bin.resolve("go");
                Files.writeString(shim, new String(GO_SOURCE, StandardCharsets.UTF_8).replace("@OUT@", out.toString()));
                Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("r-xr-xr-x"));
                add.put("PATH", bin + ":" + path);
            }
            Files.write(out.resolve(NODE_HOOK), NODE_SOURCE);
            Files.write(Files.createDirectory(out.resolve("py")).resolve("sitecustomize.py"), PYTHON_SOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException("preparing the wrapped runners' folder " + out + ": " + e.getMessage(), e);
        }
        String node = "--require " + out.resolve(NODE_HOOK) + " --test-reporter=spec --test-reporter-destination=stdout"
                + " --test-reporter=tap --test-reporter-destination=" + out.resolve("node-test.tap");
        String prior = env.get("NODE_OPTIONS");
        add.put("NODE_OPTIONS", prior == null || prior.isBlank() ? node : prior + " " + node);
        add.put("CARGO_TERM_COLOR", "never");
        add.put("NO_COLOR", "1");
        return add;
    }

    /** The folder to put first on PYTHONPATH (its sitecustomize is the grader's unittest hook). */
    public static Path pythonPath(Path out) {
        return out.resolve("py");
    }

    /** The reports of every instrumented run in {@code out}, and libtest's blocks in the command's output {@code run}. */
    public static Report read(ExecResult run, Path out, Path root) {
        List<TestCase> tests = new ArrayList<>();
        List<IntegrityFinding> findings = new ArrayList<>();
        TreeSet<String> runners = new TreeSet<>();
        List<String> errors = new ArrayList<>();
        Map<String, List<Path>> runs = runs(out);
        runs.forEach((base, files) -> {
            String kind = base.startsWith("node-test-") ? "node-test" : base.substring(0, base.indexOf('-'));
            runners.add(kind);
            TestRunner.Report r;
            try {
                r = readOne(kind, base, out, root);
            } catch (IOException | RuntimeException e) {
                r = TestRunner.Report.error(kind + " (" + base + "): " + e.getMessage());
            }
            tests.addAll(r.tests());
            findings.addAll(r.findings());
            if (r.error() != null) errors.add(r.error());
            if (r.buildFailure() != null) errors.add(kind + " did not build: " + r.buildFailure());
        });
        String text = run.stdout() + (run.stderr() == null ? "" : run.stderr());
        if (text.lines().anyMatch(l -> CargoTestRunner.RESULT.matcher(l.strip()).matches())) {
            TestRunner.Report r = new CargoTestRunner().read(run, out, root);
            if (!r.tests().isEmpty()) {
                runners.add("cargo");
                tests.addAll(r.tests());
                findings.addAll(r.findings());
            }
        }
        return new Report(ReportChecks.uniqueIds(tests), findings, List.copyOf(runners), errors);
    }

    /** One run's report with its own exit code and output as the run it came from. */
    private static TestRunner.Report readOne(String kind, String base, Path out, Path root) throws IOException {
        byte[] exit = ReportChecks.readReport(out, base + ".exit");
        if (exit == null) return TestRunner.Report.error(kind + " run " + base + " left no exit status (it was killed or never finished)");
        int code = Integer.parseInt(new String(exit, StandardCharsets.UTF_8).strip());
        byte[] printed = ReportChecks.readReport(out, base + ".out");
        String output = printed == null ? "" : new String(printed, StandardCharsets.UTF_8);
        switch (kind) {
            case "go" -> {
                byte[] events = ReportChecks.readReport(out, base + ".jsonl");
                String s = events == null ? "" : new String(events, StandardCharsets.UTF_8);
                return new GoTestRunner().read(new ExecResult(code, s, "", false, false, 0, -1), out, root);
            }
            case "node-test" -> {
                byte[] tap = ReportChecks.readReport(out, base + ".tap");
                if (tap == null) return TestRunner.Report.error("node --test run " + base + " wrote no TAP report");
                return new NodeTestRunner().read(new ExecResult(code, new String(tap, StandardCharsets.UTF_8), "", false, false, 0, -1), out, root);
            }
            case "unittest" -> {
                Path one = Files.createTempDirectory(out, "read-");
                Path report = out.resolve(base + ".jsonl");
                if (Files.isRegularFile(report, LinkOption.NOFOLLOW_LINKS)) Files.copy(report, one.resolve(UnittestRunner.REPORT));
                return new UnittestRunner().read(new ExecResult(code, "", output, false, false, 0, -1), one, root);
            }
            case "jest", "vitest", "mocha" -> {
                Path one = Files.createTempDirectory(out, "read-");
                Path report = out.resolve(base + ".json");
                if (Files.isRegularFile(report, LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(report, one.resolve(kind + ".json"));
                }
                ExecResult r = new ExecResult(code, output, "", false, false, 0, -1);
                return kind.equals("mocha") ? new MochaRunner().read(r, one, root) : new JestRunner(kind.equals("vitest")).read(r, one, root);
            }
            default -> {
                return TestRunner.Report.error("unknown run " + base);
            }
        }
    }

    /** The runs in {@code out} by base name ({@code go-PID.N}, {@code jest-PID-MS} ...), each with its files. */
    private static Map<String, List<Path>> runs(Path out) {
        Map<String, List<Path>> runs = new java.util.TreeMap<>();
        try (Stream<Path> files = Files.list(out)) {
            files.forEach(f -> {
                String n = f.getFileName().toString();
                if (!n.matches("(go|node-test|jest|vitest|mocha|unittest)-[^/]+\\.(exit|jsonl|json|out|tap)")) return;
                runs.computeIfAbsent(n.substring(0, n.lastIndexOf('.')), k -> new ArrayList<>()).add(f);
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return runs;
    }

    private static byte[] load(String name) {
        try (InputStream in = WrappedRunners.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("resource " + name + " missing from the sidecar-verifier jar");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
