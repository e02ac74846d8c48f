package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14 "spec.patches are written through symlinks" on the CLI side: a workspace that holds a link an
 * agent planted (a restored branch, or an agent's workspace reused as an environment), and a Rollout whose
 * patch path goes through it. {@code crucible restore} applies no patches today, so the CLI path that
 * writes them is {@code crucible run}'s workspace preparer. The snapshot agent's restore path is
 * covered by snapshot-agent's SnapshotStoreAttacksTest. As root and as the throwaway uid 64123 (setpriv): the host
 * folder the link leads to is world-writable, so only the CLI's refusal can hold it for either user.
 */
@Tag("attacks")
@Timeout(300)
class PatchSymlinkAttackTest {

    // Attack: `notes -> /host/folder` and `hint.md -> /host/file` in the workspace; patches notes/hint.txt and hint.md.
    // Must hold: nothing is written outside the attempt's workspace; a refusal names spec.patches.
    @ParameterizedTest(name = "as uid {0} (0: root)")
    @ValueSource(ints = {0, CliProcess.THROWAWAY_UID})
    void aPatchIsNeverWrittenThroughALinkInTheWorkspace(int asUid) throws Exception {
        Integer uid = asUid == 0 ? null : asUid;
        CliProcess.assumeRoot(); // root, or to become the throwaway uid
        CliProcess.assumeBubblewrapFor(uid);
        try (AttackHost host = new AttackHost()) {
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-patch", "");
            Files.createSymbolicLink(env.resolve("workspace/notes"), host.hostDir);
            Files.createSymbolicLink(env.resolve("workspace/hint.md"), host.hostDir.resolve("dangling-hint"));
            Files.writeString(env.resolve("rollout.yaml"), AttackFixtures.rolloutWithLimits("patched", "true", 120, "")
                    + """
                      patches:
                        - path: notes/hint.txt
                          content: "try the other approach"
                        - path: hint.md
                          content: "pwned"
                    """);
            Path out = host.base.resolve("out");
            if (uid != null) CliProcess.chown(env, uid);
            CliProcess.Result run = CliProcess.run(uid, host.home, List.of("run", "-f", env.toString(), "--out", out.toString()), null, 240);
            assertThat(host.hostWrites()).as("files written outside the workspace; CLI output:\n" + run.output()).isEmpty();
            if (run.exit() != 0 || !Files.exists(out.resolve("result.json"))) assertThat(run.output()).contains("spec.patches");
        }
    }
}
