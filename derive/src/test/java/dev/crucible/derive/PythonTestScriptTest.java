package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code python test.py}: per test when the script ends in unittest.main(), one execution otherwise. */
class PythonTestScriptTest {
    @TempDir
    Path repo;

    @Test
    void aUnittestScriptIsGradedPerTest() throws Exception {
        Files.writeString(repo.resolve("test.py"), "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n\n\n"
                + "if __name__ == '__main__':\n    unittest.main()\n");
        Derivation d = derive(repo, "python-test-script.yml");

        assertThat(d.verifier().command()).isEqualTo("python test.py");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
    }

    @Test
    void anyOtherScriptIsAWrapperWithoutFramework() throws Exception {
        // the grader runs it with its runners instrumented; one that reports none is graded as one execution, saying so
        Files.writeString(repo.resolve("test.py"), "import sys\n\nsys.exit(0 if 1 + 1 == 2 else 1)\n");
        assertThat(derive(repo, "python-test-script.yml").verifier().type()).isEqualTo("test-suite");
        assertThat(derive(repo, "python-test-script.yml").verifier().framework()).isNull();

        // its own runner: the grader's result class would not be used
        Files.writeString(repo.resolve("test.py"), "import unittest\n\nunittest.main(testRunner=unittest.TextTestRunner(verbosity=2))\n");
        assertThat(derive(repo, "python-test-script.yml").verifier().framework()).isNull();
    }
}
