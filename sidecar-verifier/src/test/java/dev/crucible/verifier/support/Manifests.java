package dev.crucible.verifier.support;

import java.nio.file.Path;

/** Writes small RLEnvironment manifests next to a workspace for tests. */
public final class Manifests {
    private Manifests() {}

    /** The example's verifier with another hack policy and optional hidden tests. */
    public static Path bugfix(Path dir, String action, String hiddenPath) {
        Fixtures.copyExample(dir);
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: bugfix-test
                spec:
                  workspace:
                    path: ./workspace
                  task:
                    prompt: fix divide
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: python3 -m pytest -q -p no:cacheprovider
                    failToPass: [tests/test_ops.py::test_divide_negative, tests/test_ops.py::test_divide_by_zero]
                    passToPass: [tests/test_ops.py::test_add, tests/test_ops.py::test_divide_positive]
                    rewardMode: binary
                    timeoutSeconds: 120
                    protectedPaths: ["tests/**", conftest.py, pytest.ini]
                %s
                  hackPolicy:
                    action: %s
                """.formatted(hiddenPath == null ? "" : "    hiddenTests:\n      path: " + hiddenPath, action);
        Path m = dir.resolve("env-" + action + ".yaml");
        Fixtures.write(m, yaml);
        return m;
    }
}
