package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProtectedPathMountsTest {

    @Test
    void wholeDirectoriesAreMountable() {
        assertThat(ProtectedPathMounts.mountable(List.of("tests/**", "./bench/", "./docs/**")))
                .containsExactly("tests", "bench", "docs");
    }

    @Test
    void singlePathsAreLeftToTheVerifier() {
        // a subPath the image lacks would become a read-only directory: planting one would fail unreported
        assertThat(ProtectedPathMounts.mountable(List.of("conftest.py", "./pytest.ini", "pyproject.toml", "tests")))
                .isEmpty();
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
