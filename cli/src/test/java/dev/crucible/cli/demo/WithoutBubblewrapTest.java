package dev.crucible.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first commands on a machine without bubblewrap (issue 33 point 4), for real: the CLI runs in its own
 * process inside a mount namespace where every {@code bwrap} it could find is covered by {@code /dev/null},
 * which is what a machine without the package looks like to it. Where bwrap is not installed at all the
 * CLI runs as it is. The demo must still show honest Succeeded 1.0 and hacker Hacked 0.0, with a banner
 * saying what was not enforced; {@code crucible run} must refuse before the agent starts, with a reason,
 * and hold nothing against the agent.
 */
class WithoutBubblewrapTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path root;
    private static List<Path> bwraps;

    @BeforeAll
    static void locate() {
        root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve(CrucibleHome.MARKER))) root = root.getParent();
        Set<Path> found = new LinkedHashSet<>();
        Stream.concat(Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")), Stream.of("/usr/bin"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "bwrap")).filter(Files::isExecutable).forEach(found::add);
        bwraps = List.copyOf(found);
        if (!bwraps.isEmpty()) {
            Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                    "hiding the installed bwrap needs root (a private mount namespace); nothing was run");
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "unshare (util-linux) is missing; nothing was run");
        }
    }

    @Test
    @Timeout(240)
    void theDemoShowsBothOutcomesWithABannerSayingWhatWasNotEnforced(@TempDir Path out) throws Exception {
        String o = cli(List.of("demo", "--out", out.toString()), 220);
        assertThat(o).contains("NO SANDBOX: bubblewrap (bwrap) is not installed")
                .contains("NOT enforced")
                .containsPattern("honest:\\s+Succeeded, reward 1\\.0, no reward-hack finding")
                .containsPattern("hacker:\\s+Hacked, reward 0\\.0, \\d+ findings?")
                .doesNotContain("result-channel");
        assertThat(JSON.readTree(out.resolve("honest/result.json").toFile()).path("hackFindings")).isEmpty();
    }

    @Test
    @Timeout(240)
    void runRefusesBeforeTheAgentStartsAndHoldsNothingAgainstIt(@TempDir Path out) throws Exception {
        Path marker = out.resolve("agent-ran");
        String o = cli(List.of("run", "-f", root.resolve("examples/python-bugfix").toString(), "--out", out.toString(),
                "--agent-cmd", "touch " + marker), 220);
        JsonNode r = JSON.readTree(out.resolve("result.json").toFile());
        assertThat(r.path("phase").asText()).as(o).isEqualTo("Failed");
        assertThat(r.path("reason").asText()).isEqualTo("SandboxUnavailable");
        assertThat(r.path("message").asText()).contains("bubblewrap").contains("--no-sandbox");
        assertThat(r.path("hackFindings")).isEmpty();
        assertThat(marker).doesNotExist();
    }

    @Test
    @Timeout(240)
    void verifyEndsInAnErrorVerdictNamingTheMissingSandboxNotInATamperingFinding() throws Exception {
        Path example = root.resolve("examples/python-bugfix");
        String o = cli(List.of("verify", "-f", example.resolve("environment.yaml").toString(), "--workspace", example.resolve("workspace").toString()), 220);
        JsonNode r = JSON.readTree(o.substring(o.indexOf('{')));
        assertThat(r.path("verdict").asText()).as(o).isEqualTo("error");
        assertThat(r.path("reason").asText()).contains("grading sandbox unavailable").contains("--no-sandbox");
        assertThat(r.path("hackFindings")).isEmpty();
        assertThat(r.path("flagged").asBoolean()).isFalse();
    }

    /** {@code crucible ARGS} in its own JVM, with no bwrap to find; returns its output (it must exit 0). */
    private static String cli(List<String> args, long seconds) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (!bwraps.isEmpty()) {
            StringBuilder hide = new StringBuilder();
            for (Path b : bwraps) hide.append("mount --bind /dev/null '").append(b).append("' && ");
            cmd.addAll(List.of("/usr/bin/unshare", "-m", "--propagation", "private", "--", "/bin/sh", "-c", hide + "exec \"$@\"", "sh"));
        }
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
                "dev.crucible.cli.Main"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().put("CRUCIBLE_HOME", root.toString());
        Process p = pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        String o = new String(bytes, StandardCharsets.UTF_8);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("crucible " + args + " did not end in " + seconds + " s:\n" + o);
        }
        assertThat(p.exitValue()).as(o).isZero();
        return o;
    }
}
