package dev.crucible.verifier.grade.oracle;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import dev.crucible.verifier.support.Fixtures;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** End-to-end grading of the calc fixture (Episode: reset, verify, the real grading sandbox) for the oracle's test classes. */
final class OracleGrades {
    private OracleGrades() {}

    /** {@code dir}/workspace: the calc fixture with {@code ops} as calc/ops.py. */
    static Path project(Path dir, String ops) {
        Path ws = dir.resolve("workspace");
        Fixtures.copyTree(resource("integrity/base"), ws);
        Fixtures.write(ws.resolve("calc/ops.py"), ops);
        return ws;
    }

    /** calc/ops.py with divide fixed: a tree the fixture's own tests all pass on. */
    static final String FIXED_OPS = """
            def add(a, b):
                return a + b


            def divide(a, b):
                if b == 0:
                    raise ValueError("division by zero")
                return a / b
            """;

    /** Each of {@code ids} is in the report, once, and passed. */
    static void assertEachPassed(VerifyReport r, List<String> ids) {
        String why = r.reason() + " " + r.tests().details();
        for (String id : ids) {
            org.assertj.core.api.Assertions.assertThat(r.tests().details()).as(why).filteredOn(t -> t.id().equals(id)).singleElement()
                    .satisfies(t -> org.assertj.core.api.Assertions.assertThat(t.status().name()).as(id + ": " + t.message())
                            .isEqualToIgnoringCase("passed"));
        }
    }

    /** The grading command of the calc fixture. */
    static final String PYTEST = "python3 -m pytest -q -p no:cacheprovider";

    /** Grades {@code ws} with {@code dir}/env.yaml; {@code extra}: more lines of spec.verifier (a hiddenTests entry). */
    static VerifyReport grade(Path dir, Path ws, String extra, List<String> f2p) {
        return grade(dir, ws, PYTEST, extra, f2p, List.of("tests/test_ops.py::test_add"), 120);
    }

    /** The same with every field of the verifier that the oracle's test classes vary. */
    static VerifyReport grade(Path dir, Path ws, String command, String extra, List<String> f2p, List<String> p2p, int timeoutSeconds) {
        return grade(dir, ws, command, extra, f2p, p2p, timeoutSeconds, null);
    }

    /** The same with the Episode's state folder at {@code stateDir} (null: its default), where grading's results lie. */
    static VerifyReport grade(Path dir, Path ws, String command, String extra, List<String> f2p, List<String> p2p, int timeoutSeconds,
                              Path stateDir) {
        Fixtures.write(dir.resolve("env.yaml"), """
                kind: RLEnvironment
                metadata: {name: oracle}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: %s
                    failToPass: [%s]
                    passToPass: [%s]
                    protectedPaths: ["tests/**"]
                    timeoutSeconds: %d
                """.formatted(command, String.join(", ", f2p.stream().map(s -> '"' + s + '"').toList()), String.join(", ", p2p), timeoutSeconds)
                + extra.lines().map(l -> "    " + l + "\n").reduce("", String::concat));
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200))
                .withExecutor(new GradingSandbox(BoxLimits.defaults()));
        if (stateDir != null) o = o.withStateDir(stateDir);
        try (Episode ep = new Episode(Environment.load(dir.resolve("env.yaml")), ws, o)) {
            ep.reset();
            return ep.verify();
        }
    }

    static VerifyReport grade(Path dir, Path ws) {
        return grade(dir, ws, "", List.of("tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> integrity(VerifyReport r) {
        return (Map<String, Object>) r.details().get("integrity");
    }

    static Path resource(String name) {
        try {
            return Path.of(OracleGrades.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
