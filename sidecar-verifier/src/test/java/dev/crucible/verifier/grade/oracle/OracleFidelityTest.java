package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import dev.crucible.verifier.support.Fixtures;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isolated oracle on an honest package shaped like the real suites it failed (issue 33: toolz 44/192, cachetools
 * 264/279 where plain pytest passes all): tests inside the package (fid/tests), --doctest-modules, a command of two
 * pytest lines, and each value kind those suites read (module metadata and namespace, a module made at run time,
 * per-instance __doc__/__module__, a class name in a repr, a suppressed exception context, a tuple subclass that
 * caches its hash, typed keys, identity with random.choice, builtins passed in, a warning from the tree). Every test
 * passes; each is isolated, or in-process with its reason where it cannot run split (a callback, the tree's doctests).
 */
class OracleFidelityTest {
    @TempDir Path dir;

    @BeforeAll
    static void needs() {
        Box.Availability a = Box.availability();
        assumeTrue(a.ok(), "bubblewrap is needed for the grading sandbox and the oracle's workers: " + a.problem());
    }

    @Test
    @SuppressWarnings("unchecked")
    void anHonestPackageWithInternalTestsDoctestsAndTwoLinesGetsEveryTestPassed() {
        VerifyReport r = grade();
        String why = r.reason() + " " + r.tests().details() + " " + r.details() + " " + r.hackFindings();
        assertThat(r.reward()).as(why).isEqualTo(1.0);
        assertThat(r.hackFindings()).as(why).allMatch(f -> f.severity().equals("info"));
        List<TestCase> tests = r.tests().details();
        assertThat(tests).as(why).allMatch(t -> t.status() == TestStatus.PASSED);
        // the doctest of the tree's own module: collected only by the in-process run, graded there, labelled
        assertThat(tests).filteredOn(t -> t.id().equals("fid/core.py::fid.core.inc")).as(why)
                .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
        // line 1's record survives line 2's run: its callback test is graded in-process, not failed
        assertThat(tests).filteredOn(t -> t.id().endsWith("::test_a_callback_needs_in_process_grading")).as(why)
                .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
        assertThat((Map<String, Object>) integrity(r).get("inProcessBecause")).as(why)
                .containsKey("fid/core.py").containsKey("fid/tests/test_fidelity.py::test_a_callback_needs_in_process_grading");
        // every value kind crosses faithfully: these stay isolated
        List<String> isolated = List.of("test_module_metadata", "test_module_namespace", "test_made_at_run_time",
                "test_per_instance_doc_and_module", "test_class_name_and_repr", "test_suppressed_context", "test_tuple_subclass_is_a_tuple",
                "test_typed_keys_differ", "test_hash_runs_the_trees_hash", "test_identity_with_a_library_function",
                "test_pure_functions_cross", "test_warning_from_the_tree");
        for (String n : isolated) {
            assertThat(tests).filteredOn(t -> t.id().equals("fid/tests/test_fidelity.py::" + n)).as(n + " " + why)
                    .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
        }
        assertThat(tests).filteredOn(t -> t.id().equals("extra/test_extra.py::test_inc_again")).as(why)
                .singleElement().satisfies(t -> assertThat(t.integrity()).isEqualTo(TestCase.ISOLATED));
        assertThat(integrity(r)).containsEntry("reward", "in-process");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> integrity(VerifyReport r) {
        return (Map<String, Object>) r.details().get("integrity");
    }

    private VerifyReport grade() {
        Path ws = dir.resolve("workspace");
        Fixtures.copyTree(resource("oracle/fidelity"), ws);
        Fixtures.write(dir.resolve("env.yaml"), """
                kind: RLEnvironment
                metadata: {name: fidelity}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: |-
                      python3 -m pytest -q -p no:cacheprovider --doctest-modules fid/
                      python3 -m pytest -q -p no:cacheprovider extra/
                    protectedPaths: ["fid/tests/**", "extra/**"]
                    timeoutSeconds: 120
                    inProcessVerdicts: trusted  # the fallback's own fidelity is checked here; each line keeps it
                """);
        Environment env = Environment.load(dir.resolve("env.yaml"));
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200))
                .withExecutor(new GradingSandbox(BoxLimits.defaults()));
        try (Episode ep = new Episode(env, ws, o)) {
            ep.reset();
            return ep.verify();
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(OracleFidelityTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
