package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run without cgroups (uid 64123: no delegated cgroup) holds memory and processes by rlimits, and its first lines must
 * say what they hold and what they do not. They said "RLIMIT_NPROC, counts all of this user's processes", which is true
 * only outside the run's own user namespace, and "memory 1Gi" with no word that it is per process. A real CLI as the uid,
 * with 200 processes of the same uid running outside the run: the agent forks until refused, and what it got is checked
 * against what the line says (in the run's namespace the 200 do not count; in the host's, CRUCIBLE_DISK_NAMESPACE=0, they do).
 */
@Timeout(600)
class RlimitLinesTest {
    private static final int OUTSIDE = 200;
    private static final Pattern FORKED = Pattern.compile("forked (\\d+)");

    @Test
    void inTheRunsOwnNamespaceTheLineSaysWhatCountsAndTheForksAgree() throws Exception {
        Run r = run(Map.of());
        assertThat(r.limits).contains("memory 1Gi (RLIMIT_AS: the address space of each process, not resident memory)",
                "processes 1024 (RLIMIT_NPROC: every process and thread of uid 64123 in this run's user namespace counts",
                "the uid's processes outside it do not", "NOT limited: ", "the box's memory in total (each process may map 1Gi; needs cgroups)");
        assertThat(r.forked).as("the uid's %d processes outside the run took nothing: %s", OUTSIDE, r.output).isGreaterThan(1024 - OUTSIDE);
    }

    @Test
    void inTheHostsNamespaceTheUidsOtherProcessesCountAndTheLineSaysSo() throws Exception {
        Run r = run(Map.of("CRUCIBLE_DISK_NAMESPACE", "0"));
        assertThat(r.limits).contains("processes 1024 (RLIMIT_NPROC: every process and thread of uid 64123 on this machine counts",
                "and every other process of that uid", "the box's memory in total");
        assertThat(r.forked).as("the uid's %d processes outside the run count: %s", OUTSIDE, r.output).isLessThan(1024 - OUTSIDE);
    }

    private record Run(String limits, int forked, String output) {}

    private static Run run(Map<String, String> env) throws Exception {
        CliProcess.assumeRoot();
        CliProcess.assumeBubblewrapFor(CliProcess.THROWAWAY_UID);
        Path base = Files.createTempDirectory(Path.of("/var/tmp"), "crucible-rlimits-");
        List<Process> outside = new ArrayList<>();
        try {
            Files.setPosixFilePermissions(base, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Path envDir = base.resolve("env");
            AttackFixtures.attackEnvironment(envDir, "hidden-tests-rlimits", "");
            // a probe, not an attack: it forks until the kernel refuses, then ends its children
            Files.writeString(envDir.resolve("workspace/probe.py"), """
                    import os, time
                    pids = []
                    try:
                        while len(pids) < 3000:
                            p = os.fork()
                            if p == 0:
                                time.sleep(60)
                                os._exit(0)
                            pids.append(p)
                    except OSError as e:
                        print("refused:", e)
                    print("forked", len(pids))
                    for p in pids:
                        os.kill(p, 9)
                    for p in pids:
                        os.waitpid(p, 0)
                    """);
            Files.createDirectories(base.resolve("home"));
            CliProcess.chown(base, CliProcess.THROWAWAY_UID);
            for (int i = 0; i < OUTSIDE; i++) { // the uid's processes outside the run, in the host's namespaces
                outside.add(new ProcessBuilder("setpriv", "--reuid=" + CliProcess.THROWAWAY_UID, "--regid=" + CliProcess.THROWAWAY_UID,
                        "--clear-groups", "sleep", "300").start());
            }
            Path log = base.resolve("cli.log");
            Process cli = CliProcess.start(CliProcess.THROWAWAY_UID, base.resolve("home"), List.of("run", "-f", envDir.toString(),
                    "--agent-cmd", "python3 probe.py", "--out", base.resolve("out").toString()), null, log, env);
            if (!cli.waitFor(400, TimeUnit.SECONDS)) {
                cli.descendants().forEach(ProcessHandle::destroyForcibly);
                cli.destroyForcibly();
            }
            String output = Files.readString(log);
            String agent = Files.exists(base.resolve("out/agent.log")) ? Files.readString(base.resolve("out/agent.log")) : "";
            String limits = output.lines().filter(l -> l.contains("sandbox: bubblewrap box")).findFirst().orElse("");
            Matcher m = FORKED.matcher(agent);
            assertThat(m.find()).as("the probe's count: " + agent + "\n" + output).isTrue();
            System.out.printf("[rlimits] %s: the agent forked %s with %d processes of the uid outside; %s%n", env.isEmpty() ? "own namespace"
                    : env, m.group(1), OUTSIDE, limits.substring(Math.max(0, limits.indexOf("limits: "))));
            return new Run(limits, Integer.parseInt(m.group(1)), output + "\nagent.log:\n" + agent);
        } finally {
            outside.forEach(Process::destroyForcibly);
            for (Process p : outside) p.waitFor(10, TimeUnit.SECONDS);
            AttackHost.delete(base);
        }
    }
}
