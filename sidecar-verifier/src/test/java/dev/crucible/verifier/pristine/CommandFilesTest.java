package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.config.VerifierSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a verifier command runs are the grader's (blind round 12, x25/x42): found from the command and the task's
 * tree, graded from the pristine copy, yet left to the agent to edit; pytest 9's pytest.toml is test configuration (x24).
 */
class CommandFilesTest {
    @TempDir
    Path dir;

    @Test
    void theFilesACommandRunsAreFoundFromItsWords() throws Exception {
        Files.writeString(dir.resolve("Makefile"), "include common.mk\n-include $(LOCAL)\nsinclude ci/extra.mk\ntest:\n\tpytest\n");
        Files.createDirectories(dir.resolve("ci"));
        Files.writeString(dir.resolve("common.mk"), "include ci/deep.mk\n");
        assertThat(CommandFiles.of("make test", dir)).containsExactly("GNUmakefile", "makefile", "Makefile", "common.mk", "ci/deep.mk", "ci/extra.mk");
        assertThat(CommandFiles.of("make -C sub -f ci.mk test", null)).containsExactly("sub/ci.mk");
        assertThat(CommandFiles.of("cd . && PYTHONHASHSEED=0 ./ci/test.sh -x", null)).containsExactly("ci/test.sh");
        assertThat(CommandFiles.of("bash -e scripts/run tests", null)).containsExactly("scripts/run");
        assertThat(CommandFiles.of("tox -e py311", null)).containsExactly("tox.ini");
        assertThat(CommandFiles.of("nox -s tests", null)).containsExactly("noxfile.py");
        assertThat(CommandFiles.of("python3 run_tests.py", null)).containsExactly("run_tests.py");
        // the grader's own pytest, an interpreter of the setup's virtual environment, an absolute program: none of the tree's
        assertThat(CommandFiles.of("python3 -m pytest -q", null)).isEmpty();
        assertThat(CommandFiles.of(".venv/bin/python -m pytest tests", null)).isEmpty();
        assertThat(CommandFiles.of("/usr/bin/env python3 -c 'print(1)'", null)).isEmpty();
        assertThat(CommandFiles.of("sh ../outside.sh", null)).isEmpty();
    }

    @Test
    void aMakefileIsGradedFromThePristineCopyAndStaysTheAgentsToEdit() throws Exception {
        VerifierSpec v = new VerifierSpec("test-suite", "make test", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        Path task = Files.createDirectories(dir.resolve("task"));
        Files.writeString(task.resolve("Makefile"), "include rules.mk\ntest:\n\tpython3 -m pytest\n");
        Files.writeString(task.resolve("rules.mk"), "PYTEST_FLAGS = -q\n");
        Files.writeString(task.resolve("calc.py"), "x = 1\n");
        ProtectedPaths pp = ProtectedPaths.of(v, true, task);
        assertThat(pp.isProtected(Path.of("Makefile"))).isTrue();
        assertThat(pp.runsFromPristine(Path.of("Makefile"))).isTrue();
        assertThat(pp.runsFromPristine(Path.of("rules.mk"))).isTrue();
        assertThat(pp.runsFromPristine(Path.of("calc.py"))).isFalse();
        // a command file protected otherwise keeps that protection: a test script, tox.ini's judged sections
        VerifierSpec script = new VerifierSpec("test-suite", "python3 tests/run.py && tox -e py", null, null, null, List.of("tests/run.py::test_x"),
                null, null, null, null, null, null, null, null, null, null);
        assertThat(ProtectedPaths.of(script, true, task).runsFromPristine(Path.of("tests/run.py"))).isFalse();
        assertThat(ProtectedPaths.of(script, true, task).runsFromPristine(Path.of("tox.ini"))).isFalse();
        assertThat(ProtectedPaths.of(script, false, task).runsFromPristine(Path.of("tox.ini"))).isTrue();
        PristineSnapshot pristine = PristineSnapshot.take(task, pp, dir.resolve("pristine"));

        // the agent's edits: a recipe that forges the channel, an include that drops the oracle's variable
        Files.writeString(task.resolve("Makefile"), "test:\n\tpython3 tools/forge.py\n");
        Files.writeString(task.resolve("rules.mk"), "unexport CRUCIBLE_ORACLE_CONFIG\n");
        GradingTree.Built built = GradingTree.build(task, pristine, dir.resolve("grade"), null, null);
        assertThat(built.root().resolve("Makefile")).hasContent("include rules.mk\ntest:\n\tpython3 -m pytest");
        assertThat(built.root().resolve("rules.mk")).hasContent("PYTEST_FLAGS = -q");
        assertThat(built.root().resolve("calc.py")).exists();
    }

    /** The wrapped fixture of blind round 13: make test, a recipe running a script, a script sourcing an untracked file. */
    private Path wrappedTask() throws Exception {
        Path task = Files.createDirectories(dir.resolve("task"));
        Files.createDirectories(task.resolve("scripts"));
        Files.writeString(task.resolve("Makefile"), "# Developer tasks.\nPYTHON ?= python3\n\n.PHONY: test lint\n\ntest: check\n\tsh scripts/run-tests.sh\n\n"
                + "check:\n\t@./scripts/check.sh && echo ok\n\nlint:\n\tsh scripts/lint.sh\n");
        Files.writeString(task.resolve("scripts/run-tests.sh"), "#!/bin/sh\nset -e\ncd \"$(dirname \"$0\")/..\"\nif [ -f .env.test ]; then\n"
                + "    set -a\n    . ./.env.test\n    set +a\nfi\nsource ci/common.sh  # shared helpers\nexec ${PYTHON:-python3} -m pytest -q \"$@\"\n");
        Files.writeString(task.resolve("scripts/check.sh"), "#!/bin/bash\n. \"$(dirname \"$0\")/check.env\"\n");
        Files.writeString(task.resolve("scripts/lint.sh"), "#!/bin/sh\npython3 -m pyflakes .\n");
        Files.createDirectories(task.resolve("ci"));
        Files.writeString(task.resolve("ci/common.sh"), "bash ci/more.sh\n");
        Files.writeString(task.resolve("calc.py"), "x = 1\n");
        return task;
    }

    @Test
    void aRecipesScriptAndWhatItSourcesAreCommandFiles() throws Exception {
        Path task = wrappedTask();
        // the test target's recipe and its prerequisite's; the script's cd to the root; what it sources, committed or not
        assertThat(CommandFiles.of("make test", task)).containsExactlyInAnyOrder("GNUmakefile", "makefile", "Makefile",
                "scripts/run-tests.sh", ".env.test", "ci/common.sh", "ci/more.sh", "scripts/check.sh", "scripts/check.env");
        // the default goal is the first target; another target's recipe is none of grading's
        assertThat(CommandFiles.of("make", task)).contains("scripts/run-tests.sh").doesNotContain("scripts/lint.sh");
        assertThat(CommandFiles.of("make lint", task)).contains("scripts/lint.sh").doesNotContain("scripts/run-tests.sh", ".env.test");
        assertThat(CommandFiles.of("sh scripts/run-tests.sh", task)).contains(".env.test", "ci/common.sh");
        // without the task's tree nothing is read: the script named on the line only
        assertThat(CommandFiles.of("sh scripts/run-tests.sh", null)).containsExactly("scripts/run-tests.sh");
    }

    @Test
    void aRewrittenScriptAndAnAddedSourcedFileAreNotWhatGradingRuns() throws Exception {
        Path task = wrappedTask();
        VerifierSpec v = new VerifierSpec("test-suite", "make test", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        ProtectedPaths pp = ProtectedPaths.of(v, true, task);
        assertThat(pp.runsFromPristine(Path.of(".env.test"))).isTrue();
        assertThat(pp.runsFromPristine(Path.of("scripts/lint.sh"))).isFalse();
        PristineSnapshot pristine = PristineSnapshot.take(task, pp, dir.resolve("pristine"));
        String script = Files.readString(task.resolve("scripts/run-tests.sh"));
        // the agent's work (blind round 13): x42 rewrites the script, x39 adds the file it sources
        Files.writeString(task.resolve("scripts/run-tests.sh"), "#!/bin/sh\nexport GATE=1\nexec python3 -c 'import calc, pytest; pytest.main()'\n");
        Files.writeString(task.resolve(".env.test"), "GATE=1\n");
        Files.writeString(task.resolve("calc.py"), "x = 2\n");
        GradingTree.Built built = GradingTree.build(task, pristine, dir.resolve("grade"), null, null);
        assertThat(built.root().resolve("scripts/run-tests.sh")).hasContent(script.strip());
        assertThat(built.root().resolve(".env.test")).doesNotExist();
        assertThat(built.root().resolve("calc.py")).hasContent("x = 2");
    }

    @Test
    void pytestTomlIsTestConfiguration() {
        VerifierSpec v = new VerifierSpec("test-suite", "python3 -m pytest", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        ProtectedPaths pp = ProtectedPaths.of(v);
        assertThat(pp.isProtected(Path.of("pytest.toml"))).isTrue();
        assertThat(pp.isProtected(Path.of(".pytest.toml"))).isTrue();
        assertThat(pp.judgedBySections(Path.of("pytest.toml"))).isFalse(); // protected whole, as pytest.ini
        assertThat(ProtectedPaths.of(v, false).isProtected(Path.of("pytest.toml"))).isFalse(); // protectedDefaults: false
    }
}
