package dev.crucible.verifier.grade;

import dev.crucible.verifier.config.VerifierSpec;

/** One way of deciding whether the work is right (seed 002's five families plus composites). */
public interface Strategy {
    Outcome grade(VerifierSpec spec, GradeContext ctx);

    static Strategy forType(String type) {
        return switch (type) {
            case "execution" -> new ExecutionStrategy();
            case "io" -> new IoStrategy();
            case "assertion" -> new AssertionStrategy();
            case "bidirectional" -> new BidirectionalStrategy();
            case "composite" -> new CompositeStrategy();
            default -> IsolatedTestSuite.around(new TestSuiteStrategy());
        };
    }
}
