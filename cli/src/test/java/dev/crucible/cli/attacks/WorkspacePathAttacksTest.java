package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14 "workspace.path of /, . or an ancestor of --out validates" (`.` then copied itself 557 levels
 * deep). Both {@code crucible validate} and {@code crucible run} must refuse, exit 2, naming
 * spec.workspace.path, before copying anything. The run is a separate process whose --out is a 64 MiB
 * tmpfs, so code that does not refuse fills that and nothing else. As root and as the throwaway uid 64123 (setpriv).
 */
@Tag("attacks")
@Timeout(300)
class WorkspacePathAttacksTest {

    // Attack: a manifest whose workspace is the whole file system or the manifest's own folder.
    // Must hold: validate and run exit 2 naming spec.workspace.path; run copies nothing.
    @ParameterizedTest(name = "workspace.path: {0} as uid {1} (0: root)")
    @CsvSource({"/, 0", "., 0", "./, 0", "/, " + CliProcess.THROWAWAY_UID, "., " + CliProcess.THROWAWAY_UID, "./, " + CliProcess.THROWAWAY_UID})
    void rootOrTheManifestFolderIsRefused(String path, int asUid) throws Exception {
        Integer uid = asUid == 0 ? null : asUid;
        if (uid != null) CliProcess.assumeRoot(); // to become the throwaway uid
        try (AttackHost host = new AttackHost()) {
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-ws", "");
            Path manifest = env.resolve("environment.yaml");
            Files.writeString(manifest, Files.readString(manifest).replace("path: ./workspace", "path: " + path));
            if (uid != null) CliProcess.chown(env, uid);
            CliProcess.Result validate = CliProcess.run(uid, host.home, List.of("validate", "-f", manifest.toString()), null, 120);
            AssertionError runFailure = null;
            try {
                assertRunRefused(host, manifest, null, uid); // checked even when validate lets it through: separate entry points
            } catch (AssertionError e) {
                runFailure = e;
            }
            try {
                assertThat(validate.exit()).as("validate: " + validate.output()).isEqualTo(2);
                assertThat(validate.output()).contains("spec.workspace.path");
            } catch (AssertionError e) {
                if (runFailure != null) e.addSuppressed(runFailure);
                throw e;
            }
            if (runFailure != null) throw runFailure;
        }
    }

    // Attack: --out inside the workspace, so the copy of the workspace contains the copy (unbounded recursion).
    // Must hold: run exits 2 naming spec.workspace.path (an ancestor of the output folder).
    @ParameterizedTest(name = "as uid {0} (0: root)")
    @ValueSource(ints = {0, CliProcess.THROWAWAY_UID})
    void anAncestorOfTheOutputFolderIsRefused(int asUid) throws Exception {
        Integer uid = asUid == 0 ? null : asUid;
        try (AttackHost host = new AttackHost()) {
            Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-ws", "");
            if (uid != null) CliProcess.chown(env, uid);
            assertRunRefused(host, env.resolve("environment.yaml"), env.resolve("workspace/results"), uid);
        }
    }

    private static void assertRunRefused(AttackHost host, Path manifest, Path outInside, Integer uid) throws Exception {
        CliProcess.assumeRoot(); // to mount the bounded tmpfs
        Path out = outInside != null ? outInside : host.base.resolve("out");
        Files.createDirectories(out);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64m,mode=0777", "tmpfs", out.toString()).inheritIO().start();
        Assumptions.assumeTrue(mount.waitFor() == 0, "attack suite: cannot mount a bounded tmpfs for --out");
        try {
            CliProcess.Result run = CliProcess.run(uid, host.home, List.of("run", "-f", manifest.toString(), "--out", out.toString(),
                    "--agent-cmd", "true"), null, 120);
            assertThat(run.exit()).as(run.output()).isEqualTo(2);
            assertThat(run.output()).contains("spec.workspace.path").contains(manifest.toString());
            try (var s = Files.list(out)) {
                assertThat(s.toList()).as("nothing is copied into --out").isEmpty();
            }
        } finally {
            new ProcessBuilder("umount", "-l", out.toString()).inheritIO().start().waitFor();
        }
    }
}
