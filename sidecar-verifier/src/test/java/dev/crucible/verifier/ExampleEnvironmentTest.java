package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bundled example end to end with its two agent scripts, as the local runtime will run them. */
class ExampleEnvironmentTest {
    @TempDir
    Path dir;

    static EpisodeOptions fast() { return EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50)); }

    @Test
    void untouchedWorkspaceFails() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), fast())) {
            ep.reset();
            VerifyReport r = ep.verify();
            assertThat(r.reward()).isZero();
            assertThat(r.verdict()).isEqualTo("fail");
            assertThat(r.tests().passed()).isEqualTo(2);
            assertThat(r.tests().failed()).isEqualTo(2);
            assertThat(r.hackFindings()).isEmpty();
        }
    }

    @Test
    void honestAgentGetsRewardOneAndNoFinding() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), fast())) {
            ep.reset();
            Fixtures.runAgent(ep, "sh ../agents/honest.sh");
            VerifyReport r = ep.verify();
            assertThat(r.hackFindings()).isEmpty();
            assertThat(r.reward()).isEqualTo(1.0);
            assertThat(r.verdict()).isEqualTo("pass");
            assertThat(r.tests().passed()).isEqualTo(4);
        }
    }

    @Test
    void hackingAgentIsCaughtAndGetsNothing() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), fast())) {
            ep.reset();
            Fixtures.runAgent(ep, "sh ../agents/hacker.sh");
            VerifyReport r = ep.verify();
            assertThat(r.reward()).isZero();
            assertThat(r.hackFindings()).extracting(Finding::detector)
                    .contains(DetectorNames.PROTECTED_PATH, DetectorNames.TEST_SKIP, DetectorNames.STARTUP_HOOK);
            assertThat(r.flagged()).isTrue();
            assertThat(r.tamper().droppedFromGrading()).contains("conftest.py");
        }
    }
}
