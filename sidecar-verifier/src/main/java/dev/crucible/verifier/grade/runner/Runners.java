package dev.crucible.verifier.grade.runner;

import java.util.List;
import java.util.Optional;

/**
 * The runners the grader knows, in detection order. A verifier's {@code framework} names one
 * explicitly; without it the last command of {@code command} picks one, and a command no runner
 * recognises stays pytest (the default framework), graded through the result channel.
 */
public final class Runners {
    public static final List<TestRunner> ALL = List.of(
            new GoTestRunner(), new NextestRunner(), new CargoTestRunner(), new NodeTestRunner(),
            new JestRunner(false), new JestRunner(true), new MochaRunner(), new UnittestRunner(),
            new JUnitReportRunner("maven", JUnitReportRunner.MAVEN_GLOB), new JUnitReportRunner("gradle", JUnitReportRunner.GRADLE_GLOB));

    /** Framework names a verifier may give besides pytest, junit-xml and tap. */
    public static final List<String> NAMES = ALL.stream().map(TestRunner::name).toList();

    private Runners() {}

    public static Optional<TestRunner> byName(String name) {
        return ALL.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /**
     * The script as it will run (a package-manager script expanded from {@code root}'s package.json)
     * and the runner its last line runs.
     */
    public record Resolved(String script, TestRunner runner) {}

    public static Optional<Resolved> resolve(String script, java.nio.file.Path root) {
        Optional<TestCommand> c = TestCommand.parse(script);
        if (c.isEmpty()) return Optional.empty();
        Optional<String> expanded = PackageScripts.expand(c.get(), root);
        String s = expanded.orElse(script);
        Optional<TestCommand> last = TestCommand.parse(s);
        return last.flatMap(l -> ALL.stream().filter(r -> r.matches(l, root)).findFirst()).map(r -> new Resolved(s, r));
    }

    /** The runner whose command the script's last line runs, if any. */
    public static Optional<TestRunner> detect(String script) {
        Optional<TestCommand> c = TestCommand.parse(script);
        if (c.isEmpty()) return Optional.empty();
        return ALL.stream().filter(r -> r.matches(c.get())).findFirst();
    }
}
