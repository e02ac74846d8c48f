package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Setup's install of the project itself becomes editable: the tests then import the tree the agent edits. */
class ProjectInstallsTest {
    @TempDir
    Path repo;

    @Test
    void aCopyOfTheProjectBecomesAnEditableInstall() throws Exception {
        Derivation d = derive(repo, "python-install-project.yml");
        assertThat(d.setupScript()).contains("pip install -e . coverage")
                .contains("python -m pip install --upgrade -e \".[test]\" -r requirements.txt");
        assertThat(WorkflowFixtures.step(d, 3).notes()).anyMatch(n -> n.contains("the project is installed editable"));
    }

    @Test
    void onlyTheProjectItselfIsMadeEditable() {
        assertThat(ProjectInstalls.rewrite("pip install .")).isEqualTo("pip install -e .");
        assertThat(ProjectInstalls.rewrite("uv pip install './[dev]'")).isEqualTo("uv pip install -e './[dev]'");
        assertThat(ProjectInstalls.rewrite("pip install -e .")).isEqualTo("pip install -e .");
        assertThat(ProjectInstalls.rewrite("pip install coverage pytest")).isEqualTo("pip install coverage pytest");
        assertThat(ProjectInstalls.rewrite("pip install -r . ")).isEqualTo("pip install -r . ");
        assertThat(ProjectInstalls.rewrite("pip install dist/*.whl")).isEqualTo("pip install dist/*.whl");
        assertThat(ProjectInstalls.rewrite("pip install . && pytest")).isEqualTo("pip install . && pytest");
        assertThat(ProjectInstalls.rewrite("npm install .")).isEqualTo("npm install .");
    }
}
