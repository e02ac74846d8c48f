package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** black's CI: `pip install --group test` (PEP 735) needs pip 25.1; the venv's older pip said "no such option: --group". */
class PipGroupTest {
    @TempDir
    Path repo;

    @Test
    void pipIsRaisedBeforeTheFirstGroupInstall() throws Exception {
        Derivation d = WorkflowFixtures.derive(WorkflowFixtures.repository(repo), "pip-group.yml");
        String setup = d.setupScript();
        assertThat(setup).contains("python -m pip install --quiet 'pip>=25.1'");
        assertThat(setup.indexOf("'pip>=25.1'")).isLessThan(setup.indexOf("--group test"));
    }

    @Test
    void withoutAGroupInstallPipIsLeftAsItIs() throws Exception {
        Derivation d = WorkflowFixtures.derive(WorkflowFixtures.repository(repo), "secrets.yml");
        assertThat(d.setupScript()).doesNotContain("pip>=25.1");
    }
}
