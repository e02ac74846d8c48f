package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup script keeps GitHub's step semantics, checked by running it: each step in its own shell
 * (cd and export do not leak), step env and working-directory, sh / python / custom shells run as
 * files, $GITHUB_ENV and $GITHUB_PATH reach later steps, PowerShell steps are dropped.
 */
class StepShellsTest {
    private static final String WORKFLOW = """
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                env:
                  GREETING: hello
                steps:
                  - name: Leaky step
                    run: |
                      mkdir -p sub
                      cd sub
                      export LEAK=yes
                  - name: Isolated
                    run: |
                      test "$PWD" = "$GITHUB_WORKSPACE"
                      test -z "${LEAK:-}"
                      echo "$GREETING $WHO" > greeting.txt
                    env:
                      WHO: "it's ${{ runner.os }}"
                  - name: In a directory
                    working-directory: sub
                    run: pwd > where.txt
                  - name: POSIX sh
                    shell: sh
                    run: echo "sh ran" > sh.txt
                  - name: Python
                    shell: python
                    run: |
                      import os
                      open("py.txt", "w").write(os.environ["GREETING"])
                  - name: Login shell
                    shell: bash -l {0}
                    run: echo login > login.txt
                  - name: Windows only
                    shell: pwsh
                    run: Write-Output "hi"
                  - name: Export for later steps
                    run: |
                      echo "LATER=from github env" >> "$GITHUB_ENV"
                      mkdir -p "$RUNNER_TEMP/tools" && printf '#!/bin/sh\\necho tool ran\\n' > "$RUNNER_TEMP/tools/mytool"
                      chmod +x "$RUNNER_TEMP/tools/mytool" && echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
                  - name: Use them
                    run: |
                      echo "$LATER" > later.txt
                      mytool > tool.txt
                  - name: Test
                    run: make test
            """;

    @TempDir
    Path workspace;

    @Test
    void setupScriptKeepsStepSemanticsWhenRun() throws Exception {
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(workspace, null, "ci.yml", null, Map.of(), null), WORKFLOW);

        assertThat(d.steps().get(6).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(d.steps().get(6).reason()).contains("shell: pwsh");
        BashRunner.Result r = BashRunner.run(workspace, d.setupScript(), d.env());

        assertThat(r.exit()).as(r.output() + "\n---\n" + d.setupScript()).isZero();
        assertThat(workspace.resolve("greeting.txt")).hasContent("hello it's Linux");
        assertThat(workspace.resolve("sub/where.txt")).hasContent(workspace.resolve("sub").toRealPath().toString());
        assertThat(workspace.resolve("sh.txt")).hasContent("sh ran");
        assertThat(workspace.resolve("py.txt")).hasContent("hello");
        assertThat(workspace.resolve("login.txt")).hasContent("login");
        assertThat(workspace.resolve("later.txt")).hasContent("from github env");
        assertThat(workspace.resolve("tool.txt")).hasContent("tool ran");
        assertThat(d.notes()).noneMatch(n -> n.contains("writes $GITHUB_ENV"));
        assertThat(Files.exists(workspace.resolve("sub/greeting.txt"))).isFalse();
    }

    @Test
    void workspaceExpressionsExpandWhereTheStepRuns() throws Exception {
        String workflow = """
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: mkdir -p "sub dir"
                      - working-directory: ${{ github.workspace }}/sub dir
                        env:
                          NOTE: it's $HOME, literally
                          OUT: ${{ runner.temp }}/out
                        run: |
                          echo "$NOTE" > note.txt
                          echo "$OUT" | grep -q '^/' && echo absolute > out.txt
                      - run: pytest
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(workspace, null, "ci.yml", null, Map.of(), null), workflow);

        BashRunner.Result r = BashRunner.run(workspace, d.setupScript(), d.env());

        assertThat(r.exit()).as(r.output() + "\n---\n" + d.setupScript()).isZero();
        assertThat(workspace.resolve("sub dir/note.txt")).hasContent("it's $HOME, literally");
        assertThat(workspace.resolve("sub dir/out.txt")).hasContent("absolute");
    }

    @Test
    void aFailingSetupStepStopsTheScript() throws Exception {
        String workflow = """
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: |
                          false
                          echo should not run > after.txt
                      - run: echo nor this > next.txt
                      - run: pytest
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(workspace, null, "ci.yml", null, Map.of(), null), workflow);

        BashRunner.Result r = BashRunner.run(workspace, d.setupScript(), d.env());
        assertThat(r.exit()).isNotZero();
        assertThat(workspace.resolve("after.txt")).doesNotExist();
        assertThat(workspace.resolve("next.txt")).doesNotExist();
    }

    @Test
    void installLinesBeforeTheTestCommandMoveToSetup() throws Exception {
        String workflow = """
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - name: Install and test
                        run: |
                          python -m pip install -e ".[test]"
                          pip install pytest-cov
                          pytest --cov=pkg -q
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(workspace, null, "ci.yml", null, Map.of(), null), workflow);

        // Coverage leaves the graded command (CoverageWrappers): the grading tree is read-only.
        assertThat(d.verifier().command()).isEqualTo("pytest -q");
        assertThat(d.verifier().framework()).isEqualTo("pytest");
        assertThat(d.setupScript()).contains("python -m pip install -e \".[test]\"\npip install pytest-cov\n");
        assertThat(d.steps().get(0).decision()).isEqualTo(Disposition.TEST);
        assertThat(d.steps().get(0).notes()).anyMatch(n -> n.contains("run in setup"));
    }

    @Test
    void scriptsWithControlFlowStayWhole() throws Exception {
        String workflow = """
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: |
                          pip install -e .
                          if [ -d tests/integration ]; then
                            pytest tests/integration
                          fi
                          pytest tests/unit
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(workspace, null, "ci.yml", null, Map.of(), null), workflow);

        assertThat(d.verifier().command()).contains("pip install -e .").contains("if [ -d tests/integration ]; then");
        // one script, graded per test through the grader's pytest reporter in PYTEST_ADDOPTS
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isNull();
    }
}
