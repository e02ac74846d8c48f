package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * caddy's CI: "Build Caddy" (go build in ./cmd/caddy) is dropped as compiling what go test compiles again, and
 * "Smoke test Caddy" (./caddy start) then failed setup with "./caddy: No such file or directory". The smoke test
 * goes with the build; a step there that runs something else stays.
 */
class GoSmokeTestTest {
    @TempDir
    Path repo;

    @Test
    void theSmokeTestOfADroppedBuildIsDroppedToo() throws Exception {
        Derivation d = derive(WorkflowFixtures.repository(repo), "go-smoke-test.yml");
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 4).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 4).reason()).contains("./caddy").contains("smoke test");
        assertThat(step(d, 5).decision()).isEqualTo(Disposition.SETUP);
        assertThat(d.setupScript()).doesNotContain("./caddy start").contains("./configure");
    }
}
