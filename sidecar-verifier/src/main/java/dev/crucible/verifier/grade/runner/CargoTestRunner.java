package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cargo test}: libtest's machine format needs nightly ({@code -Z unstable-options --format json}),
 * so the grader reads the stable human output, with cargo's stderr merged in order ({@code 2>&1}) to
 * know which binary each block belongs to, and adds {@code --no-fail-fast} so one failing binary does
 * not hide the others. Ids are {@code BINARY/SOURCE::test::path} ({@code fixture/src/lib.rs::tests::adds},
 * {@code it/tests/it.rs::smoke}, {@code fixture/doc::src/lib.rs - add (line 2)}): the hash cargo puts in
 * the binary's file name is left out so ids stay the same from build to build. Each block is checked
 * against libtest's own "running N tests" line and its "test result:" counts.
 *
 * <p>{@code cargo hack test} (one cargo test per feature set) is read the same way, block by block; each of its
 * runs is announced by an {@code info: running `cargo test …` on PKG (k/N)} line, whose flags are appended to
 * the ids of that run ({@code log/src/lib.rs::tests::x [--no-default-features --features std]}). The grader
 * adds {@code --keep-going} so that one failing feature set does not hide the others.
 */
public final class CargoTestRunner implements TestRunner {
    static final Pattern RUNNING = Pattern.compile("^\\s*Running (?:unittests )?(\\S+) \\((?:.*/)?([^/()]+?)(?:-[0-9a-f]{16})?(?:\\.exe)?\\)\\s*$");
    static final Pattern DOC = Pattern.compile("^\\s*Doc-tests (\\S+)\\s*$");
    static final Pattern COUNT = Pattern.compile("^running (\\d+) tests?$");
    static final Pattern TEST = Pattern.compile("^test (.+?) \\.\\.\\. (ok|FAILED|ignored(?:, .*)?)$");
    static final Pattern RESULT = Pattern.compile("^test result: (ok|FAILED)\\. (\\d+) passed; (\\d+) failed; (\\d+) ignored;.*$");
    static final Pattern FAILURE_HEAD = Pattern.compile("^---- (.+?) stdout ----$");
    static final Pattern HACK_RUN = Pattern.compile("^info: running `cargo test(.*)` on (\\S+) \\((\\d+)/(\\d+)\\)$");

    @Override public String name() { return "cargo"; }

    @Override
    public boolean matches(TestCommand c) {
        return c.program().equals("cargo") && (subcommand(c).equals("test") || hackTest(c));
    }

    /** {@code cargo hack … test …}: the word test among hack's arguments (before any {@code --}). */
    static boolean hackTest(TestCommand c) {
        List<String> w = c.words();
        int hack = w.indexOf("hack");
        if (hack < 0 || !subcommand(c).equals("hack")) return false;
        int dashes = w.indexOf("--");
        return w.subList(hack + 1, dashes < 0 ? w.size() : dashes).contains("test");
    }

    /** The cargo subcommand, past {@code +toolchain} and global options. */
    static String subcommand(TestCommand c) {
        for (int i = 1; i < c.words().size(); i++) {
            String w = c.words().get(i);
            if (!w.startsWith("+") && !w.startsWith("-")) return w;
        }
        return "";
    }

    @Override
    public Plan plan(TestCommand c, Path out, Path root) {
        List<String> w = new ArrayList<>(c.words());
        // cargo's --verbose names binaries by path only ("Running `…/deps/x-hash`"): ids need the quiet form
        int dashes = w.indexOf("--");
        for (int i = (dashes < 0 ? w.size() : dashes) - 1; i > 0; i--) if (w.get(i).matches("-v+|--verbose")) w.remove(i);
        int sub = w.indexOf("test");
        if (!w.contains("--no-fail-fast")) w.add(sub + 1, "--no-fail-fast");
        if (hackTest(c) && !w.contains("--keep-going")) w.add(w.indexOf("hack") + 1, "--keep-going");
        return new Plan(c.with(w) + " 2>&1", targetDir(out));
    }

    /** The grading tree is read-only in the grading sandbox: build products go to the grader's folder. */
    static Map<String, String> targetDir(Path out) {
        return Map.of("CARGO_TERM_COLOR", "never", "CARGO_TARGET_DIR", out.resolve("target").toString());
    }

    @Override
    public String guarantee() {
        return "cargo test: libtest's human lines on cargo's stdout (a pipe the grader reads), each binary's block checked against its own counts and cargo's exit code";
    }

    @Override
    public Report read(ExecResult run, Path out, Path root) {
        String text = run.stdout() + (run.stderr() == null ? "" : run.stderr());
        List<TestCase> tests = new ArrayList<>();
        List<IntegrityFinding> findings = new ArrayList<>();
        Map<String, StringBuilder> failures = new LinkedHashMap<>();
        String binary = "unknown";
        String featureSet = null; // cargo hack's flags for the run being read
        int expected = -1;
        int blockStart = 0;
        int blocks = 0;
        StringBuilder current = null;
        for (String line : text.split("\n")) {
            line = line.stripTrailing();
            Matcher m;
            if ((m = HACK_RUN.matcher(line)).matches()) {
                featureSet = m.group(1).replace("--no-fail-fast", "").strip().replaceAll("\\s+", " ");
                current = null;
            } else if ((m = RUNNING.matcher(line)).matches()) {
                binary = m.group(2) + "/" + m.group(1);
                current = null;
            } else if ((m = DOC.matcher(line)).matches()) {
                binary = m.group(1) + "/doc";
                current = null;
            } else if ((m = COUNT.matcher(line)).matches()) {
                expected = Integer.parseInt(m.group(1));
                blockStart = tests.size();
                blocks++;
                current = null;
            } else if ((m = TEST.matcher(line)).matches()) {
                String r = m.group(2);
                TestStatus s = r.equals("ok") ? TestStatus.PASSED : r.equals("FAILED") ? TestStatus.FAILED : TestStatus.SKIPPED;
                String reason = r.startsWith("ignored, ") ? r.substring(9) : null;
                tests.add(new TestCase(id(binary, m.group(1), featureSet), s, null, null, reason));
            } else if ((m = FAILURE_HEAD.matcher(line)).matches()) {
                current = failures.computeIfAbsent(id(binary, m.group(1), featureSet), k -> new StringBuilder());
            } else if ((m = RESULT.matcher(line)).matches()) {
                current = null;
                List<TestCase> block = tests.subList(blockStart, tests.size());
                Map<TestStatus, Integer> c = ReportChecks.counts(block);
                int p = Integer.parseInt(m.group(2)), f = Integer.parseInt(m.group(3)), i = Integer.parseInt(m.group(4));
                if (block.size() != expected || c.getOrDefault(TestStatus.PASSED, 0) != p || c.getOrDefault(TestStatus.FAILED, 0) != f
                        || c.getOrDefault(TestStatus.SKIPPED, 0) != i) {
                    findings.add(IntegrityFinding.tampering("critical", "cargo", "libtest's summary for " + binary + " (" + expected + " tests: "
                            + p + " passed, " + f + " failed, " + i + " ignored) disagrees with the test lines (" + block.size() + ": " + c + ")"));
                }
                expected = -1;
                blockStart = tests.size();
            } else if (line.equals("failures:")) {
                current = null;
            } else if (current != null && current.length() < 8_000) {
                current.append(line).append('\n');
            }
        }
        if (tests.isEmpty() && blocks == 0 && run.exitCode() != 0 && text.contains("error: could not compile")) {
            return new Report(List.of(), findings, null, ReportChecks.clip(compileErrors(text)));
        }
        if (blocks == 0) return Report.error("cargo test ran no test binary (exit " + run.exitCode() + "): " + ReportChecks.clip(text));
        if (expected >= 0) {
            // a binary that died mid-run (abort, stack overflow): what it did not finish did not pass
            tests.add(new TestCase(binary + "::(binary)", TestStatus.ERROR, null, null, "the test binary stopped before its summary"));
        }
        List<TestCase> result = new ArrayList<>();
        for (TestCase t : ReportChecks.uniqueIds(tests)) {
            StringBuilder f = failures.get(t.id());
            result.add(f == null ? t : new TestCase(t.id(), t.status(), null, null, ReportChecks.clip(f.toString())));
        }
        findings.addAll(ReportChecks.exitCode("cargo", run, result));
        return new Report(result, findings, null, null);
    }

    private static String id(String binary, String test, String featureSet) {
        return binary + "::" + test + (featureSet == null ? "" : " [" + featureSet + "]");
    }

    private static String compileErrors(String text) {
        StringBuilder sb = new StringBuilder();
        for (String l : text.split("\n")) if (!l.strip().startsWith("Compiling") && !l.strip().startsWith("Downloaded")) sb.append(l).append('\n');
        return sb.toString();
    }
}
