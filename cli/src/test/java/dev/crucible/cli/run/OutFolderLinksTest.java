package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * hostred3 B2: another local user made the {@code --out} folder and planted result.json, setup.log and task.md as links
 * to a root-owned file; root's run wrote its result through them. The CLI's own files are written without following a
 * link (a fresh file renamed over the name), and an output folder owned by another user is refused.
 */
@Timeout(300)
class OutFolderLinksTest {
    private static final List<String> PLANTED = List.of("result.json", "setup.log", "task.md");

    @Test
    void linksPlantedInTheOutputFolderAreReplacedNotWrittenThrough(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path victim = Files.writeString(dir.resolve("victim.txt"), "original\n");
        Path out = Files.createDirectories(dir.resolve("out"));
        for (String f : PLANTED) Files.createSymbolicLink(out.resolve(f), victim);

        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", out.toString());

        assertThat(Files.readString(victim)).as(r.out() + r.err()).isEqualTo("original\n");
        for (String f : PLANTED) {
            assertThat(Files.isRegularFile(out.resolve(f), LinkOption.NOFOLLOW_LINKS)).as(f + "\n" + r.out() + r.err()).isTrue();
        }
        assertThat(LocalRuns.json(out.resolve("result.json")).path("phase").asText()).as(r.out()).isEqualTo("Succeeded");
        assertThat(Files.readString(out.resolve("task.md"))).contains("divide");
    }

    @Test
    void anOutputFolderOfAnotherUserIsRefused(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "chown to another uid needs root");
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path victim = Files.writeString(dir.resolve("victim.txt"), "original\n");
        Path out = Files.createDirectories(dir.resolve("theirs"));
        Files.createSymbolicLink(out.resolve("result.json"), victim);
        int other = 64123; // the attack suite's throwaway uid
        Files.setAttribute(out, "unix:uid", other);

        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", out.toString());

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).contains("--out:", "belongs to uid " + other, "use a folder of your own");
        assertThat(Files.readString(victim)).isEqualTo("original\n");
        try (var s = Files.list(out)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("result.json"); // nothing run, nothing written
        }
    }
}
