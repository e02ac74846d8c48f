package dev.crucible.verifier.exec.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.ResultChannel;
import dev.crucible.verifier.monitor.ObservedProcess;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.support.GradingContainerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interactive pod's agent-exec container, played by a real process (the runner in agent mode as
 * PID 1 of a box standing for the container: the workspace writable, its socket's volume read-only,
 * nothing else of the host), driven by the sidecar's {@link AgentContainerExecutor}. The sidecar's
 * things the test leaves beside it are world-readable and world-writable, so only the container's
 * layout keeps a command from them.
 */
class AgentContainerTest {
    @TempDir Path dir;
    Path workspace;
    Path volume;
    AgentContainerExecutor ex;
    GradingContainerProcess container;
    final List<ObservedProcess> seen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        workspace = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(workspace.resolve("README"), "task\n");
        volume = Files.createDirectories(dir.resolve("agent-exec"));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxr-xr-x"));
        ex = AgentContainerExecutor.listen(volume.resolve("runner.sock"), Duration.ofSeconds(20));
        ex.onProcesses(seen::addAll);
        container = GradingContainerProcess.startAgent(volume, dir, workspace);
    }

    @AfterEach
    void stop() {
        if (ex != null) ex.close();
        if (container != null) container.close();
    }

    /** The bash tool's request: /bin/bash -c, merged output, the agent's variables (PATH and HOME are the sidecar's). */
    private ExecResult bash(String command, Duration timeout, int maxOutput) {
        return ex.run(new ExecRequest(List.of("/bin/bash", "-c", command), workspace,
                Map.of("PATH", "/sidecar/only/bin", "HOME", "/sidecar-home", "LANG", "C.UTF-8", "TASK_VAR", "x1"), true,
                timeout, maxOutput, null, true));
    }

    private ExecResult bash(String command) {
        return bash(command, Duration.ofSeconds(20), 64 * 1024);
    }

    @Test
    void stdoutExitTimeoutAndTruncationAreTheInteractiveApis() {
        ExecResult ok = bash("echo out; echo err >&2; exit 3");
        assertThat(ok.exitCode()).as(container.log()).isEqualTo(3);
        assertThat(ok.stdout()).isEqualTo("out\nerr\n"); // merged, as the bash tool asks
        assertThat(ok.timedOut()).isFalse();
        assertThat(ok.pid()).isEqualTo(-1); // another PID namespace: never a pid of this one
        long t0 = System.nanoTime();
        ExecResult slow = bash("echo started; sleep 30", Duration.ofSeconds(1), 1000);
        assertThat(slow.timedOut()).isTrue();
        assertThat(slow.exitCode()).isEqualTo(-1);
        assertThat(slow.stdout()).isEqualTo("started\n");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(10_000);
        ExecResult big = bash("head -c 5000 /dev/zero | tr '\\0' x", Duration.ofSeconds(10), 1000);
        assertThat(big.stdout()).hasSize(1000);
        assertThat(big.truncated()).isTrue();
        assertThat(bash("kill -9 $$").exitCode()).isEqualTo(137);
    }

    @Test
    void commandsRunInTheWorkspaceWithTheContainersPathAndKeepTheirScratch() throws Exception {
        ExecResult r = bash("pwd; echo \"$PATH|$HOME|$TASK_VAR|$LANG\"; id -u; echo fix > fixed.txt; echo kept > /tmp/note");
        assertThat(r.exitCode()).as(r.stdout() + container.log()).isZero();
        List<String> lines = r.stdout().lines().toList();
        assertThat(lines.get(0)).isEqualTo(workspace.toString());
        assertThat(lines.get(1)).doesNotContain("/sidecar").endsWith("|/tmp|x1|C.UTF-8");
        if (Box.ROOT) assertThat(lines.get(2)).isEqualTo(Integer.toString(GradingContainerProcess.AGENT_UID));
        assertThat(Files.readString(workspace.resolve("fixed.txt"))).isEqualTo("fix\n");
        assertThat(bash("cat /tmp/note").stdout()).isEqualTo("kept\n"); // scratch survives between steps, as locally
    }

    @Test
    void whatACommandLeavesRunningDiesWithIt() throws Exception {
        ExecResult r = bash("(setsid sh -c 'while :; do echo beat >> beat.log; sleep 0.1; done' &) ; echo spawned");
        assertThat(r.stdout()).isEqualTo("spawned\n");
        Thread.sleep(300);
        long size = Files.exists(workspace.resolve("beat.log")) ? Files.size(workspace.resolve("beat.log")) : 0;
        Thread.sleep(600);
        assertThat(Files.exists(workspace.resolve("beat.log")) ? Files.size(workspace.resolve("beat.log")) : 0).isEqualTo(size);
    }

    /**
     * What an agent's command goes after: the sidecar's token (world-readable here), its run folder and
     * result file (world-writable here), the grader's FIFO, the sidecar's /proc, the runner's descriptors,
     * and every place outside the workspace and /tmp. Nothing is reached.
     */
    @Test
    void aCommandReachesNothingOfTheSidecarAndWritesOnlyTheWorkspace() throws Exception {
        Path token = Files.createDirectories(dir.resolve("secrets/env-api")).resolve("token");
        Files.writeString(token, "secret-token\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path termination = dir.resolve("termination-log");
        Files.writeString(termination, "");
        Files.setPosixFilePermissions(termination, PosixFilePermissions.fromString("rw-rw-rw-"));
        ResultChannel channel = ResultChannel.open(Files.createDirectories(dir.resolve("private")));
        Files.setPosixFilePermissions(channel.path().getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(channel.path(), PosixFilePermissions.fromString("rw-rw-rw-"));
        long sidecarPid = ProcessHandle.current().pid();
        String script = String.join("\n",
                "try() { if eval \"$2\" >/dev/null 2>&1; then echo \"$1: REACHED\"; else echo \"$1: refused\"; fi; }",
                "try token 'cat " + token + "'",
                "try run-write 'echo x > " + run.resolve("agent.exit") + "'",
                "try termination 'echo forged >> " + termination + "'",
                "try fifo 'echo forged > " + channel.path() + "'",
                "try sidecar-proc 'grep -q java /proc/" + sidecarPid + "/cmdline'",
                "try proc-java 'grep -l [j]ava /proc/[0-9]*/cmdline'",
                "try runner-fd 'ls /proc/1/fd'",
                "try runner-environ 'cat /proc/1/environ'",
                "try socket-volume 'touch " + volume.resolve("planted") + "'",
                "for d in / /etc /usr /usr/local/bin " + dir + "; do try \"write $d\" \"touch $d/crucible-planted\"; done",
                "try workspace 'touch planted-here'",
                "try scratch 'touch /tmp/planted-here'",
                "");
        Files.writeString(workspace.resolve("attack.sh"), script);
        ExecResult r = bash("bash attack.sh");
        String out = r.stdout();
        assertThat(out).as(container.log()).contains("workspace: REACHED", "scratch: REACHED");
        // reads are judged by what the command saw, writes by the host's files below: the test folder may lie
        // under /tmp, where the container's own scratch /tmp takes the write
        assertThat(out).contains("token: refused", "fifo: refused", "sidecar-proc: refused", "proc-java: refused",
                "runner-fd: refused", "runner-environ: refused", "socket-volume: refused", "write /: refused",
                "write /etc: refused", "write /usr: refused", "write /usr/local/bin: refused");
        assertThat(Files.readString(token)).isEqualTo("secret-token\n");
        assertThat(Files.readString(termination)).isEmpty();
        assertThat(run.resolve("agent.exit")).doesNotExist();
        assertThat(volume.resolve("planted")).doesNotExist();
        assertThat(dir.resolve("crucible-planted")).doesNotExist();
        assertThat(channel.finish(500).lines()).isEmpty();
    }

    /** The monitor's view: the runner samples the container's processes while a command runs, command lines included. */
    @Test
    void theRunnerReportsTheCommandsProcessesWhileItRuns() {
        ExecResult r = bash("sh -c 'sleep 0.8; true # /proc/self/mountinfo' ; exec 7< README; sleep 0.6");
        assertThat(r.exitCode()).as(container.log()).isZero();
        assertThat(seen).anySatisfy(p -> assertThat(p.cmdline()).contains("sleep 0.8; true # /proc/self/mountinfo"));
        assertThat(seen).anySatisfy(p -> assertThat(p.fds()).contains(workspace.resolve("README").toString()));
        assertThat(seen).allSatisfy(p -> assertThat(p.cmdline() == null ? "" : p.cmdline()).doesNotContain("grading-runner"));
    }

    /**
     * A process sampled before it execs (a script's child between fork and exec shows its parent's command
     * line) is reported again once its command line changes: same pid, same start, another program.
     */
    @Test
    void aCommandLineThatChangesByExecIsReportedAgain() throws Exception {
        Files.writeString(workspace.resolve("later.sh"), "sleep 0.8\nexec sh -c 'sleep 0.8; true # /proc/self/mountinfo'\n");
        ExecResult r = bash("sh later.sh");
        assertThat(r.exitCode()).as(container.log()).isZero();
        assertThat(seen).anySatisfy(p -> assertThat(p.cmdline()).isEqualTo("sh later.sh"));
        assertThat(seen).anySatisfy(p -> assertThat(p.cmdline()).contains("sleep 0.8; true # /proc/self/mountinfo"));
    }

    /** The hack policy's terminate during a step: the kill reaches the running command over the same connection. */
    @Test
    void aKillEndsTheRunningCommandAndBetweenCommandsKillsNothingLeft() throws Exception {
        CompletableFuture<ExecResult> running = CompletableFuture.supplyAsync(() -> bash("touch started; sleep 30", Duration.ofSeconds(60), 1000));
        // running, not a fixed sleep: at load 25 a 1.5 s sleep ended before the command had started
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workspace.resolve("started")));
        long t0 = System.nanoTime();
        assertThat(ex.killAgents(List.of())).isEqualTo(1);
        ExecResult r = running.get(20, TimeUnit.SECONDS);
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
        assertThat(r.timedOut()).isFalse();
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(ex.killAgents(List.of())).isZero(); // idle: the runner answers how many it killed
        assertThat(bash("echo still serving").stdout()).isEqualTo("still serving\n");
    }

    /** The sidecar ending (its connection closing) in the middle of a step: the step dies and the runner exits. */
    @Test
    void theRunnerEndsWithTheSidecarAndTakesARunningStepWithIt() throws Exception {
        CompletableFuture<ExecResult> running = CompletableFuture.supplyAsync(
                () -> bash("(setsid sleep 30 &); while :; do echo beat >> beat.log; sleep 0.1; done", Duration.ofSeconds(60), 1000));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workspace.resolve("beat.log")));
        ex.close();
        assertThat(container.process().waitFor(30, TimeUnit.SECONDS)).as(container.log()).isTrue();
        assertThat(running.get(10, TimeUnit.SECONDS).exitCode()).isEqualTo(127); // the step fails, never passes
        long size = Files.size(workspace.resolve("beat.log"));
        Thread.sleep(500);
        assertThat(Files.size(workspace.resolve("beat.log"))).isEqualTo(size);
    }
}
