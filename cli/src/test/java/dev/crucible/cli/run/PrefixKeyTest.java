package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.environment.SetupSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefix (setup's cache) is keyed by what setup installs: a longer setup limit reuses it (a derive retried with a
 * larger --setup-timeout rebuilt the same setup from nothing), a changed script or dependency file does not.
 */
class PrefixKeyTest {
    @TempDir
    Path ws;

    @Test
    void theSetupLimitIsNotPartOfThePrefixKey() throws Exception {
        Files.writeString(ws.resolve("requirements.txt"), "iniconfig==2.0.0\n");
        Path at180 = ExecutionPlanner.plan(doc("pip install -r requirements.txt", 180), ws).prefix();
        assertThat(ExecutionPlanner.plan(doc("pip install -r requirements.txt", 300), ws).prefix()).isEqualTo(at180);
        assertThat(ExecutionPlanner.plan(doc("pip install -r requirements.txt", null), ws).prefix()).isEqualTo(at180);
        assertThat(ExecutionPlanner.plan(doc("pip install -r requirements.txt && pip install pytest", 180), ws).prefix()).isNotEqualTo(at180);
        Files.writeString(ws.resolve("requirements.txt"), "iniconfig==2.1.0\n");
        assertThat(ExecutionPlanner.plan(doc("pip install -r requirements.txt", 180), ws).prefix()).isNotEqualTo(at180);
    }

    private static EnvironmentDoc doc(String script, Integer timeout) {
        RLEnvironmentSpec spec = new RLEnvironmentSpec();
        spec.setup = new SetupSpec();
        spec.setup.script = script;
        spec.setup.timeoutSeconds = timeout;
        spec.setup.env = Map.of("CI", "true");
        return new EnvironmentDoc("prefix-key-test", null, spec, null);
    }
}
