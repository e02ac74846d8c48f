package dev.crucible.verifier.grade.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.contract.TestFrameworks;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract's framework names are exactly the grader's runners plus the ones it reads itself. */
class RunnerNamesTest {
    @Test
    void everyFrameworkNameHasItsRunnerAndEveryRunnerIsNamed() {
        List<String> expected = new ArrayList<>(TestFrameworks.ALL);
        expected.removeAll(TestFrameworks.BUILT_IN);
        assertThat(Runners.NAMES).containsExactlyInAnyOrderElementsOf(expected);
    }
}
