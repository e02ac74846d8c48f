package dev.crucible.cli.verify;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.config.ConfigException;
import dev.crucible.verifier.config.ExcludedTest;
import dev.crucible.verifier.grade.OfflineFailures;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code crucible verify --find-offline}: the validation run. Grades the task commit (the manifest's
 * workspace) exactly as a rollout is graded, without network, and reports the tests that fail there
 * only because the network is unreachable: those whose failure names it, and, when others fail, those
 * that the same grading with the host's network passes; {@code --write} adds them to {@code spec.verifier.excludedTests}
 * so they are left out of passToPass. Tests that fail at the task commit for other reasons are listed too
 * and never excluded.
 */
final class FindOffline {
    private FindOffline() {}

    static int run(Path file, Path workspace, boolean write, PrintWriter out, PrintWriter err) {
        try {
            Environment env = Environment.load(file);
            Path ws = workspace != null ? workspace : env.workspacePath().orElseThrow(() -> new ConfigException(
                    file + ": spec.workspace.path: needed for the validation run (or give --workspace)"));
            if (!Files.isDirectory(ws)) return VerifyCommand.bad(err, "--workspace " + ws + ": no such directory");
            VerifyReport report = Episode.gradePostHoc(env, ws, EpisodeOptions.defaults().withGradingExecutor(new GradingSandbox(BoxLimits.defaults())));
            List<TestCase> tests = report.tests() == null ? List.of() : report.tests().details();
            Set<String> f2p = new HashSet<>(env.verifier().failToPass());
            List<ExcludedTest> offline = new ArrayList<>(OfflineFailures.find(tests, f2p));
            Set<String> offlineIds = new HashSet<>(offline.stream().map(ExcludedTest::id).toList());
            out.println("validation run at the task commit: " + tests.size() + " tests, reward " + report.reward() + " (" + report.reason() + ")");
            List<TestCase> unexplained = tests.stream().filter(t -> failed(t) && !offlineIds.contains(t.id()) && !f2p.contains(t.id())
                    && !"excluded".equals(t.group())).toList();
            if (!unexplained.isEmpty()) {
                // a failure that does not name the network (a test that catches the error and asserts on what it got)
                // is offline-only when the same grading with the network passes it
                VerifyReport online = Episode.gradePostHoc(env, ws, EpisodeOptions.defaults()
                        .withGradingExecutor(new GradingSandbox(BoxLimits.defaults()).withNetwork()));
                Map<String, TestStatus> withNet = new HashMap<>();
                if (online.tests() != null) online.tests().details().forEach(t -> withNet.put(t.id(), t.status()));
                out.println("the same run with the network: " + withNet.size() + " tests, reward " + online.reward());
                for (TestCase t : unexplained) {
                    if (withNet.get(t.id()) != TestStatus.PASSED) continue;
                    offline.add(new ExcludedTest(t.id(), "fails at the task commit without network and passes with it"
                            + (t.message() == null ? "" : ": " + firstLine(t.message()))));
                    offlineIds.add(t.id());
                }
            }
            for (ExcludedTest t : offline) out.println("offline-only  " + t.id() + "  -- " + t.reason());
            for (TestCase t : tests) {
                if (failed(t) && !offlineIds.contains(t.id()) && !f2p.contains(t.id()) && !"excluded".equals(t.group())) {
                    out.println("fails-at-head " + t.id() + "  -- not a network failure, still counts" + (t.message() == null ? "" : ": " + firstLine(t.message())));
                }
            }
            if (offline.isEmpty()) {
                out.println("no offline-only failures");
            } else if (write) {
                ManifestExclusions.write(file, offline);
                out.println("wrote " + offline.size() + " to " + file + " (spec.verifier.excludedTests)");
            } else {
                out.print(ManifestExclusions.block(offline, "    "));
            }
            out.flush();
            return 0;
        } catch (ConfigException e) {
            return VerifyCommand.bad(err, e.getMessage());
        } catch (IOException e) {
            return VerifyCommand.bad(err, e.getMessage());
        }
    }

    private static boolean failed(TestCase t) { return t.status() == TestStatus.FAILED || t.status() == TestStatus.ERROR; }

    private static String firstLine(String s) {
        String l = s.strip().lines().findFirst().orElse("");
        return l.length() > 160 ? l.substring(0, 160) + "…" : l;
    }
}
