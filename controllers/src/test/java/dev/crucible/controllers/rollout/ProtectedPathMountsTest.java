package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProtectedPathMountsTest {

    @Test
    void literalPathsAndWholeDirectoriesAreMountable() {
        assertThat(ProtectedPathMounts.mountable(List.of("tests/**", "conftest.py", "./pytest.ini", "bench/")))
                .containsExactly("tests", "conftest.py", "pytest.ini", "bench");
    }

    @Test
    void scatteredGlobsAndEscapesAreLeftToTheVerifier() {
        assertThat(ProtectedPathMounts.mountable(List.of("**/conftest.py", "src/*_test.py", "../etc", "/abs", "a/../../b")))
                .isEmpty();
    }

    @Test
    void nestedAndDuplicatePathsCollapse() {
        assertThat(ProtectedPathMounts.mountable(List.of("tests/unit/**", "tests/**", "tests/**")))
                .containsExactly("tests");
        assertThat(ProtectedPathMounts.mountable(null)).isEmpty();
    }
}
