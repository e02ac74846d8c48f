package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: what the host does with the agent's files must be as safe as the box. Each case is a real
 * {@code crucible run} process (as root, and as the throwaway uid 64123) whose agent plants something from
 * inside its box ({@code attacks/host/*.sh}); what must hold is checked on the host: the run ends by its
 * deadline with a result, no host secret appears in any output, the host's own disk use (sampled on its file
 * system, not the box's), the agent's capabilities under {@code --snapshot-every}, the API token off stdout.
 */
@Tag("attacks")
@Timeout(1800)
class HostSideAttacksTest {
    static final long GIB = 1L << 30;
    static final long MIB = 1L << 20;

    @TestFactory
    Stream<DynamicTest> asRoot() throws Exception {
        CliProcess.assumeRoot();
        CliProcess.assumeBubblewrapFor(null);
        return attacks(null);
    }

    @TestFactory
    Stream<DynamicTest> asUnprivilegedUser() throws Exception {
        CliProcess.assumeRoot(); // to become the throwaway uid
        CliProcess.assumeBubblewrapFor(CliProcess.THROWAWAY_UID);
        return attacks(CliProcess.THROWAWAY_UID);
    }

    private Stream<DynamicTest> attacks(Integer uid) throws Exception {
        String who = uid == null ? "root" : "uid " + uid;
        List<DynamicTest> tests = new ArrayList<>();
        // -Dhostside.only=fifo-head,token-stdout runs those cases alone (each is a CLI run of up to minutes)
        List<String> only = List.of(System.getProperty("hostside.only", "").split(",")).stream().filter(x -> !x.isBlank()).toList();
        java.util.function.Predicate<String> on = name -> only.isEmpty() || only.contains(name);
        if (on.test("fifo-head")) tests.addAll(fifoHead(uid, who));
        if (on.test("head-link-secret")) tests.addAll(headLinkSecret(uid, who));
        if (on.test("sparse-3g")) tests.addAll(sparseFile(uid, who));
        if (on.test("disk-parallel")) tests.addAll(parallelWriters(uid, who));
        if (on.test("snapshot-root")) tests.addAll(snapshotEveryAsRoot(uid, who));
        if (on.test("token-stdout")) tests.addAll(tokenOnStdout(uid, who));
        if (on.test("sealing-key")) tests.addAll(sealingKeyFromTheBox(uid, who));
        if (on.test("samesize-mtime")) tests.addAll(sameSizeEditMtimeBack(uid, who));
        if (on.test("sigterm")) tests.addAll(sigterm(uid, who));
        if (on.test("sealing-key-interactive")) tests.addAll(sealingKeyFromAStep(uid, who));
        if (on.test("hostile-files")) tests.addAll(hostileFiles(uid, who));
        return tests.stream();
    }

    /**
     * Point 1 and 2: a FIFO at .git/HEAD. Deadline 60 s (a fresh home provisions its Python first: 20 s at load 30,
     * which a 20 s deadline left no agent time for), grading bound 30 s; the run must end with a result.
     */
    private List<DynamicTest> fifoHead(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "fifo-head")) {
            r.environment(e -> e.replace("    timeoutSeconds: 120\n", "    timeoutSeconds: 30\n"));
            r.rollout("fifo-head", 60);
            HostSideRun.Ended end = r.run(List.of(), 60 + 30 + 60, false);
            JsonNode res = r.result();
            String ctx = r.context(end);
            return List.of(
                    DynamicTest.dynamicTest("fifo-head: the run ends by its deadline with a result (" + who + ")", () -> {
                        assertThat(end.killedByTest()).as("the CLI was still running %d s after its 60 s deadline: %s", end.seconds(), ctx).isFalse();
                        assertThat(res).as("result.json: " + ctx).isNotNull();
                        assertThat(res.path("phase").asText()).as(ctx).isIn("Succeeded", "Failed", "Hacked", "TimedOut");
                    }),
                    DynamicTest.dynamicTest("fifo-head: the monitor reports the FIFO as a finding (" + who + ")", () -> {
                        assertThat(res).as("result.json: " + ctx).isNotNull();
                        assertThat(res.path("hackFindings").toString()).as("hackFindings in result.json: " + ctx).contains(".git/HEAD");
                    }));
        }
    }

    /**
     * Point 1: in interactive mode (as the issue found it), .git/HEAD, config and packed-refs link to a 0600 host
     * file of the CLI's user that the box does not show; the next step's findings must not quote it.
     */
    private List<DynamicTest> headLinkSecret(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "head-link-secret")) {
            // short: the monitor's evidence quoted HEAD's first 11 characters ("HEAD moved … to detached:SECEVAL-ROO")
            String marker = "SX" + String.format("%07x", System.nanoTime() & 0xfffffff);
            Path secret = r.host.home.resolve("secret.txt");
            r.ownFile(secret, marker + "\n");
            r.env("ATTACK_SECRET", secret.toString());
            r.interactiveRollout("host-head-link-secret", 240);
            HostSideRun.Ended end = r.drive(List.of("sh .host-attacks/head-link-secret.sh", "sleep 2", "true"), 300);
            String ctx = r.context(end);
            List<String> leaks = r.filesContaining(marker);
            String output = end.output();
            return List.of(DynamicTest.dynamicTest("head-link-secret: the host secret is in no output of the run (" + who + ")", () -> {
                assertThat(output).as("the attack ran: " + ctx).contains("PLANTED: .git/HEAD ->");
                assertThat(output).as("the CLI's terminal output and the API's answers").doesNotContain(marker);
                assertThat(leaks).as("files of the attempt folder that quote the secret: " + ctx).isEmpty();
            }));
        }
    }

    /**
     * Point 1 (the monitor reads what the agent made): a same-size edit of calc/ops.py with its mtime put back must reach the
     * live monitor. Before the change time was compared only grading's oracle noticed (medium, no path): no live finding.
     */
    private List<DynamicTest> sameSizeEditMtimeBack(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "samesize-mtime")) {
            r.rollout("samesize-mtime", 90);
            HostSideRun.Ended end = r.run(List.of(), 240, false);
            String ctx = r.context(end);
            String log = r.agentLog();
            JsonNode res = r.result();
            return List.of(DynamicTest.dynamicTest("samesize-mtime: the live monitor judges a same-size edit whose mtime was put back ("
                    + who + ")", () -> {
                assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: same-size edit");
                assertThat(res).as("result.json: " + ctx).isNotNull();
                List<String> live = new ArrayList<>();
                res.path("hackFindings").forEach(f -> {
                    if (f.path("path").asText().equals("calc/ops.py") && f.path("severity").asText().equals("critical")) live.add(f.toString());
                });
                assertThat(live).as("critical findings on calc/ops.py in %s: %s", res.path("hackFindings"), ctx).isNotEmpty();
            }));
        }
    }

    /** Point 2: SIGTERM to the CLI while its monitor may be at a FIFO and a setsid process ignores TERM. */
    private List<DynamicTest> sigterm(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "sigterm")) {
            String marker = "877." + ProcessHandle.current().pid() + (uid == null ? "0" : "1");
            r.env("ATTACK_MARKER", marker);
            r.rollout("sigterm", 300);
            HostSideRun.Ended end = r.runSignalled("PLANTED", "TERM", 240);
            String ctx = r.context(end);
            JsonNode res = r.result();
            List<String> left = r.leftovers(marker);
            System.out.println("[host-side] hostile-files: " + ctx.lines().findFirst().orElse("") + ", "
                    + end.output().lines().filter(l -> l.contains("disk limit")).findFirst().orElse("no disk limit line").strip() + ", phase " + (res == null ? "none (no result.json)" : res.path("phase").asText())
                    + ", deep tree named " + (res != null && res.toString().contains("calc/deep/dd/dd/dd")) + ", left " + left);
            String log = r.agentLog();
            return List.of(DynamicTest.dynamicTest("sigterm: an Interrupted result, and no process, state folder, cgroup or mount left ("
                    + who + ")", () -> {
                assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: FIFO at .git/HEAD");
                assertThat(end.exit()).as(ctx).isEqualTo(128 + 15);
                assertThat(res).as("result.json: " + ctx).isNotNull();
                assertThat(res.path("reason").asText()).as(ctx).isEqualTo("Interrupted");
                assertThat(left).as("left on the host: " + ctx).isEmpty();
            }));
        }
    }

    /** Point 1 in an embedded run: links to /dev/zero and to a host file, a 2 GiB sparse file, a file flipping kinds mid-read. */
    private List<DynamicTest> hostileFiles(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "hostile-files")) {
            String marker = "SX" + String.format("%07x", System.nanoTime() & 0xfffffff);
            Path secret = r.host.home.resolve("secret.txt");
            r.ownFile(secret, marker + "\n");
            r.env("ATTACK_SECRET", secret.toString());
            // the tree past PATH_MAX for both users: as uid 64123 the sandbox folder is a tmpfs in the run's own mount namespace
            // (an ext4 image served by fuse2fs, forced with CRUCIBLE_DISK_VOLUME=image, overran grading's bound with it)
            r.env("ATTACK_DEEP", "1");
            r.environment(e -> e.replace("    timeoutSeconds: 120\n", "    timeoutSeconds: 60\n"));
            r.rollout("hostile-files", 60);
            HostSideRun.Ended end = r.runInOwnTmp(60 + 60 + 90);
            String ctx = r.context(end);
            String log = r.agentLog();
            JsonNode res = r.result();
            List<String> leaks = r.filesContaining(marker);
            List<String> left = r.leftovers(marker);
            System.out.println("[host-side] hostile-files: " + ctx.lines().findFirst().orElse("") + ", "
                    + end.output().lines().filter(l -> l.contains("disk limit")).findFirst().orElse("no disk limit line").strip() + ", phase " + (res == null ? "none (no result.json)" : res.path("phase").asText())
                    + ", deep tree named " + (res != null && res.toString().contains("calc/deep/dd/dd/dd")) + ", left " + left);
            return List.of(DynamicTest.dynamicTest("hostile-files: the run ends with a result and quotes no host file (" + who + ")", () -> {
                assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: links to /dev/zero");
                assertThat(end.killedByTest()).as("still running at the bound: " + ctx).isFalse();
                assertThat(res).as("result.json: " + ctx).isNotNull();
                assertThat(res.path("phase").asText()).as(ctx).isIn("Succeeded", "Failed", "Hacked", "TimedOut");
                assertThat(end.output()).as("the CLI's output").doesNotContain(marker).doesNotContain("OutOfMemoryError");
                assertThat(leaks).as("files of the attempt folder that quote the host file: " + ctx).isEmpty();
                // a tree past PATH_MAX once failed the copy that grading builds: skipped, and named in result.json by its prefix
                assertThat(res.toString()).as("result.json names the skipped deep tree: " + ctx).contains("calc/deep/dd/dd/dd").contains("PATH_MAX");
                // and the run's state folder (its copies of that workspace) is removed however deep the tree in it
                assertThat(left).as("left on the host: " + ctx).isEmpty();
            }));
        }
    }

    /** Point 3: a 3 GiB sparse file with no disk limit in the environment (as in the bundled example). */
    private List<DynamicTest> sparseFile(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "sparse-3g")) {
            r.rollout("sparse-3g", 120);
            HostSideRun.Ended end = r.run(List.of(), 400, true);
            String ctx = r.context(end);
            String log = r.agentLog();
            String beforeRunning = end.output().lines().takeWhile(l -> !l.contains("Running:")).reduce("", (a, b) -> a + b + "\n");
            return List.of(
                    DynamicTest.dynamicTest("sparse-3g: the host's disk use stays under 1 GiB (" + who + ")", () -> {
                        assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: sparse.bin");
                        assertThat(end.peakDiskGrowth()).as("peak growth of the host's disk use in bytes (%d MiB): %s",
                                end.peakDiskGrowth() / MIB, ctx).isLessThan(GIB);
                    }),
                    DynamicTest.dynamicTest("sparse-3g: with no limit in the environment the CLI names its default disk limit first ("
                            + who + ")", () -> assertThat(beforeRunning.toLowerCase()).as(ctx).contains("disk limit")));
        }
    }

    /** Point 3: four writers of 900 MiB at once against ephemeralStorage 1Gi. */
    private List<DynamicTest> parallelWriters(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "disk-parallel")) {
            r.environment(e -> e.replace("    memory: 1Gi\n", "    memory: 1Gi\n    ephemeralStorage: 1Gi\n"));
            r.rollout("disk-parallel", 180);
            HostSideRun.Ended end = r.run(List.of(), 400, true);
            String ctx = r.context(end);
            String log = r.agentLog();
            JsonNode result = r.result();
            if (uid != null) {
                // Without root the limit is a tmpfs of 1 GiB in the run's own user and mount namespace (MountNamespace): its
                // files are memory, so the host's shared memory is what must stay within the limit, and its disk must not grow
                // either. Before it, the limit was only polled: 3.6 GiB of the host's disk went to the four writers.
                return List.of(DynamicTest.dynamicTest("disk-parallel: without root a 1 GiB limit holds within 64 MiB (a tmpfs; the host's"
                        + " disk and shared memory) (" + who + ")", () -> {
                    assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: 4 writers");
                    if (end.output().contains("more than half of the")) { // a machine with under 2 GiB free: the run must say why
                        assertThat(end.output()).as(ctx).contains("NOT enforced as a hard cap");
                        return;
                    }
                    assertThat(end.output()).as("the first lines say how the limit is held: " + ctx).contains("disk limit 1Gi")
                            .contains("enforced by a tmpfs");
                    assertThat(end.peakDiskGrowth()).as("peak growth of the host's disk use in bytes (%d MiB): %s",
                            end.peakDiskGrowth() / MIB, ctx).isLessThanOrEqualTo(GIB + 64 * MIB);
                    assertThat(end.peakShmemGrowth()).as("peak of the run's own tmpfs mounts (RunTmpfs: shared memory) in bytes (%d MiB): %s",
                            end.peakShmemGrowth() / MIB, ctx).isLessThanOrEqualTo(GIB + 64 * MIB);
                    assertThat(result).as("result.json: " + ctx).isNotNull();
                    assertThat(result.path("reason").asText()).as(ctx).isEqualTo("ResourceLimitExceeded");
                }));
            }
            return List.of(DynamicTest.dynamicTest("disk-parallel: a 1 GiB limit holds within 64 MiB on the host's disk (" + who + ")", () -> {
                assertThat(log).as("the attack ran: " + ctx).contains("PLANTED: 4 writers");
                assertThat(end.peakDiskGrowth()).as("peak growth of the host's disk use in bytes (%d MiB): %s",
                        end.peakDiskGrowth() / MIB, ctx).isLessThanOrEqualTo(GIB + 64 * MIB);
            }));
        }
    }

    /** Point 4: --snapshot-every must not hand the agent host root, capabilities or the sealing key. */
    private List<DynamicTest> snapshotEveryAsRoot(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "snapshot-root")) {
            Path key = r.host.home.resolve(".config/crucible/snapshot-hmac.key");
            r.ownFile(key, Long.toHexString(System.nanoTime()) + "00112233445566778899aabbccddeeff\n");
            r.env("ATTACK_KEY", key.toString());
            r.rollout("snapshot-root", 60);
            HostSideRun.Ended end = r.run(List.of("--snapshot-every", "30s", "--snapshot-store", r.host.base.resolve("store").toString()), 180, false);
            String ctx = r.context(end);
            String log = r.agentLog();
            boolean forged = Files.exists(key.resolveSibling("forged"));
            return List.of(DynamicTest.dynamicTest("snapshot-root: no capability, host root or sealing key for the agent, or a refusal ("
                    + who + ")", () -> {
                if (end.exit() == 2 && log.isEmpty()) { // refused before anything ran: it must say why and what to use instead
                    assertThat(end.output().toLowerCase()).as(ctx).contains("--snapshot-every").contains("workspace-only");
                    return;
                }
                assertThat(log).as("the attack ran: " + ctx).contains("SAW: CapEff=");
                assertThat(log).as(ctx).contains("SAW: CapEff=0000000000000000");
                assertThat(log).as(ctx).doesNotContain("uid_map=0 0 4294967295").contains("SAW: key unreadable").contains("SAW: host write refused");
                assertThat(forged).as("a file written beside the sealing key").isFalse();
            }));
        }
    }

    /** Point 4, "in any mode": the sealing key lives in the CLI user's config folder, which the agent's box never shows. */
    private List<DynamicTest> sealingKeyFromTheBox(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "sealing-key")) {
            Path key = r.host.home.resolve(".config/crucible/snapshot-hmac.key");
            r.ownFile(key, Long.toHexString(System.nanoTime()) + "00112233445566778899aabbccddeeff\n");
            r.env("ATTACK_KEY", key.toString());
            r.rollout("snapshot-root", 60);
            HostSideRun.Ended end = r.run(List.of(), 180, false);
            String ctx = r.context(end);
            String log = r.agentLog();
            boolean forged = Files.exists(key.resolveSibling("forged"));
            return List.of(DynamicTest.dynamicTest("sealing-key: the box of a plain run cannot read or write beside the key (" + who + ")", () -> {
                assertThat(log).as("the attack ran: " + ctx).contains("SAW: CapEff=0000000000000000").contains("SAW: key unreadable")
                        .contains("SAW: host write refused");
                assertThat(forged).as("a file written beside the sealing key").isFalse();
            }));
        }
    }

    /** Point 4, "in any mode": an interactive run's steps (a trainer's bash tool) see the key no more than an embedded agent. */
    private List<DynamicTest> sealingKeyFromAStep(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "sealing-key-interactive")) {
            Path key = r.host.home.resolve(".config/crucible/snapshot-hmac.key");
            String secret = Long.toHexString(System.nanoTime()) + "00112233445566778899aabbccddeeff";
            r.ownFile(key, secret + "\n");
            r.env("ATTACK_KEY", key.toString());
            r.interactiveRollout("host-sealing-key-interactive", 240);
            HostSideRun.Ended end = r.drive(List.of("sh .host-attacks/snapshot-root.sh"), 300);
            String ctx = r.context(end);
            boolean forged = Files.exists(key.resolveSibling("forged"));
            List<String> leaks = r.filesContaining(secret);
            return List.of(DynamicTest.dynamicTest("sealing-key-interactive: a step cannot read or write beside the key (" + who + ")", () -> {
                assertThat(end.output()).as("the attack ran: " + ctx).contains("SAW: CapEff=0000000000000000").contains("SAW: key unreadable")
                        .contains("SAW: host write refused").doesNotContain(secret);
                assertThat(forged).as("a file written beside the sealing key").isFalse();
                assertThat(leaks).as("files of the attempt folder that quote the key: " + ctx).isEmpty();
            }));
        }
    }

    /** Point 5: the interactive API token must not be on standard output (a log of it is often world-readable). */
    private List<DynamicTest> tokenOnStdout(Integer uid, String who) throws Exception {
        try (HostSideRun r = new HostSideRun(uid, "token-stdout")) {
            r.interactiveRollout("token-stdout", 120);
            HostSideRun.TokenRun t = r.interactiveToken();
            String ctx = "CLI output:\n" + t.output();
            return List.of(DynamicTest.dynamicTest("token-stdout: the API token goes to the 0600 file only (" + who + ")", () -> {
                assertThat(t.token()).as("OUT/api-token: " + ctx).isNotBlank();
                assertThat(t.output()).as("standard output").doesNotContain(t.token()).contains("api-token");
            }));
        }
    }
}
