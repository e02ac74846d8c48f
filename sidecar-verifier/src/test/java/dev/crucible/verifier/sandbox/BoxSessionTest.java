package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real bwrap, a real exec server: a step in the episode's persistent box is confined exactly as a step in a box of its
 * own (namespaces, uid map, capabilities, seccomp, no_new_privs, mounts, rlimits, cgroup, environment), cannot reach
 * the server's pipes, leaves no process behind, and a box that dies or goes stale is never used again.
 */
class BoxSessionTest {
    @TempDir Path tmp;
    Path ws;
    Path conftest;

    @BeforeEach
    void setUp() throws IOException {
        assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem());
        assumeTrue(BoxSession.python().isPresent(), "no system python3 for the exec server");
        ws = Files.createDirectories(tmp.resolve("attempt-0/workspace"));
        conftest = Files.writeString(ws.resolve("conftest.py"), "# protected\n");
    }

    Box open() throws IOException {
        return Box.open(BoxSpec.of("session", BoxLimits.defaults()).withWritable(ws).withReadOnly(List.of(conftest)));
    }

    ExecResult step(BoxSession s, String script, int seconds, AtomicLong pid) {
        return s.run(new ExecRequest(List.of("/bin/sh", "-c", script), ws, BoxTest.env(), true, Duration.ofSeconds(seconds),
                1 << 20, null, true), pid::set);
    }

    ExecResult step(BoxSession s, String script) { return step(s, script, 20, new AtomicLong()); }

    /** Everything the kernel and bwrap decide about a command's confinement, as the command itself sees it. */
    static String probe() throws IOException {
        StringBuilder s = new StringBuilder();
        for (String n : List.of("user", "mnt", "pid", "net", "ipc", "uts", "cgroup")) {
            String host = Files.readSymbolicLink(Path.of("/proc/self/ns", n)).toString();
            s.append("[ \"$(readlink /proc/self/ns/").append(n).append(")\" = '").append(host).append("' ] && echo 'ns ").append(n)
                    .append(" host' || echo 'ns ").append(n).append(" own'\n");
        }
        s.append("echo uid_map; cat /proc/self/uid_map /proc/self/gid_map | tr -s ' '\n");
        s.append("grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status\n");
        s.append("echo id $(id -u) $(id -g) $(id -G); echo host $(hostname); echo cwd $(pwd); cat /proc/self/cgroup\n");
        s.append("ulimit -a\n");
        // mount point, its options, the file system, source and super options: not the mount ids or anonymous device numbers
        s.append("awk '{ split($0, h, \" - \"); split(h[2], t, \" \"); print $5, $6, t[1], t[2], t[3] }' /proc/self/mountinfo | sort\n");
        s.append("env | grep -vE '^(SHLVL|_|PWD|OLDPWD|LANG|LC_ALL|TZ)=' | sort\n");
        s.append("touch conftest.py 2>/dev/null && echo conftest writable || echo conftest read-only\n");
        s.append("ping -c1 -W1 127.0.0.1 >/dev/null 2>&1; echo net $?\n");
        return s.toString();
    }

    @Test
    void aStepInThePersistentBoxIsConfinedExactlyAsInABoxOfItsOwn() throws Exception {
        String probe = probe();
        try (Box box = open()) {
            BoxTest.Run perStep = BoxTest.run(box, ws, probe, 30);
            try (BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
                ExecResult r = step(s, probe, 30, new AtomicLong());
                assertThat(r.exitCode()).as(r.stdout()).isEqualTo(perStep.code());
                assertThat(r.stdout()).isEqualTo(perStep.out());
                // and it is a box at all: every namespace its own, no capability, an unprivileged id outside when root
                assertThat(r.stdout()).doesNotContain(" host\n").contains("CapEff:\t0000000000000000").contains("conftest read-only");
                if (Box.ROOT) assertThat(r.stdout()).doesNotContain("0 0 4294967295").doesNotContain("uid_map\n0 0 ");
            }
        }
    }

    @Test
    void aStepIsInTheBoxsCgroupsAsAPerStepBoxIs() throws Exception {
        assumeTrue(Box.ROOT, "cgroups only as root");
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            AtomicLong pid = new AtomicLong();
            List<List<Long>> seen = new ArrayList<>();
            Thread t = new Thread(() -> step(s, "sleep 2", 20, pid));
            t.start();
            for (int i = 0; i < 100 && pid.get() <= 0; i++) Thread.sleep(20);
            seen.add(box.members());
            t.join();
            assertThat(pid.get()).isPositive();
            assertThat(seen.get(0)).contains(pid.get()).contains(s.serverPid());
        }
    }

    @Test
    void aStepCannotReachTheServersPipesNorTraceIt() throws Exception {
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            ExecResult r = step(s, "for p in /proc/[0-9]*; do case $(cat $p/comm) in python3*) srv=${p#/proc/};; esac; done 2>/dev/null; echo srv=$srv;"
                    + " (: < /proc/$srv/fd/0) 2>/dev/null && echo opened || echo open-refused;"
                    + " echo '{}' > /proc/$srv/fd/0 2>/dev/null && echo wrote || echo write-refused;"
                    + " cat /proc/$srv/environ >/dev/null 2>&1 && echo environ-read || echo environ-refused");
            assertThat(r.stdout()).doesNotContain("srv=\n").contains("open-refused").contains("write-refused").contains("environ-refused");
            assertThat(step(s, "echo still").stdout()).isEqualTo("still\n");
        }
    }

    @Test
    void nothingAStepStartedOutlivesIt() throws Exception {
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            List<Long> idle = box.members();
            ExecResult r = step(s, "sleep 300 & setsid sleep 301 & (setsid sh -c 'sleep 302 &') ; echo $!");
            assertThat(r.exitCode()).isZero();
            if (idle != null) assertThat(new HashSet<>(box.members())).isEqualTo(new HashSet<>(idle));
            ExecResult ps = step(s, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done");
            assertThat(ps.stdout()).doesNotContain("sleep 30");
            assertThat(s.ended()).isNull();
        }
    }

    @Test
    void aTimeoutKillsTheWholeGroupAndTheBoxGoesOn() throws Exception {
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            long t0 = System.nanoTime();
            ExecResult r = step(s, "sleep 100 & sleep 100", 1, new AtomicLong());
            assertThat(r.timedOut()).isTrue();
            assertThat(r.exitCode()).isEqualTo(-1);
            assertThat((System.nanoTime() - t0) / 1_000_000_000).isLessThan(8);
            assertThat(step(s, "for p in /proc/[0-9]*; do cat $p/comm; done 2>/dev/null | grep -c '^sleep$' || true").stdout()).isEqualTo("0\n");
        }
    }

    @Test
    void nothingInsideCanSignalTheServer() throws Exception {
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            ExecResult r = step(s, "kill -9 -1; kill -9 1; kill -INT 1; kill -TERM 1; pkill -9 python3; sleep 0.5; echo survived");
            assertThat(r.stdout()).contains("survived");
            assertThat(s.ended()).isNull();
            assertThat(step(s, "echo ran").stdout()).isEqualTo("ran\n");
        }
    }

    @Test
    void aServerKilledFromOutsideEndsTheBoxWithAClearErrorAndIsNotUsedAgain() throws Exception {
        try (Box box = open()) {
            BoxSession s = BoxSession.start(box, ws, BoxTest.env());
            AtomicLong pid = new AtomicLong();
            Thread killer = new Thread(() -> {
                while (pid.get() <= 0) Thread.onSpinWait();
                ProcessHandle.of(s.serverPid()).ifPresent(ProcessHandle::destroyForcibly); // as the OOM killer would
            });
            killer.start();
            ExecResult r = step(s, "sleep 5; echo finished", 20, pid);
            killer.join();
            assertThat(r.exitCode()).isEqualTo(137);
            assertThat(r.stdout()).doesNotContain("finished").contains("box ended during the step");
            assertThat(s.ended()).isNotNull();
            assertThat(s.current(BoxTest.env())).isFalse();
            assertThat(step(s, "echo ran").stdout()).doesNotContain("ran\n").contains("box has ended");
            try (BoxSession again = BoxSession.start(box, ws, BoxTest.env())) {
                assertThat(step(again, "echo ran").stdout()).isEqualTo("ran\n");
            }
        }
    }

    @Test
    void aProtectedFileReplacedOnTheHostMakesTheBoxStale() throws Exception {
        try (Box box = open(); BoxSession s = BoxSession.start(box, ws, BoxTest.env())) {
            assertThat(s.current(BoxTest.env())).isTrue();
            Files.writeString(conftest, "# changed in place: the bind shows it\n");
            assertThat(s.current(BoxTest.env())).isTrue();
            Path fresh = Files.writeString(ws.resolve("conftest.py.new"), "# replaced\n");
            Files.move(fresh, conftest, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            assertThat(s.current(BoxTest.env())).as("a new inode at a read-only path").isFalse();
            assertThat(s.current(Map.of("PATH", "/usr/bin"))).isFalse();
        }
    }

    /**
     * Closing a session whose launcher ended long ago kills nothing that took its pid since (pid_max is 32768 here and a busy
     * machine wraps it in minutes): the launcher is killed by the pid and start time recorded at launch, not by number. The
     * kernel gives the launcher's pid to a new process (ns_last_pid, root only); it was killed by close before.
     */
    @Test
    void closeLeavesAloneAProcessThatReusedTheLaunchersPid() throws Exception {
        Path nsLastPid = Path.of("/proc/sys/kernel/ns_last_pid");
        assumeTrue(Files.isWritable(nsLastPid), "ns_last_pid is root's");
        java.util.Set<Long> before = new HashSet<>(ProcessHandle.current().children().map(ProcessHandle::pid).toList());
        try (Box box = open()) {
            BoxSession s = BoxSession.start(box, ws, BoxTest.env());
            ProcessHandle launcher = ProcessHandle.current().children().filter(h -> !before.contains(h.pid())).findFirst().orElseThrow();
            launcher.destroyForcibly();
            launcher.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            Thread.sleep(100); // reaped by its holding thread, and a clock tick (start times count 10 ms) later
            Process other = null;
            try {
                for (int tries = 0; tries < 50 && (other == null || other.pid() != launcher.pid()); tries++) {
                    if (other != null) other.destroyForcibly().waitFor();
                    Files.writeString(nsLastPid, Long.toString(launcher.pid() - 1)); // another fork on the machine may come first: again
                    other = new ProcessBuilder("sleep", "30").start();
                }
                assertThat(other.pid()).as("no new process got the launcher's pid in 50 tries").isEqualTo(launcher.pid());
                s.close();
                assertThat(other.waitFor(300, java.util.concurrent.TimeUnit.MILLISECONDS)).as("close killed the process that reused the launcher's pid")
                        .isFalse();
            } finally {
                if (other != null) other.destroyForcibly();
            }
        }
    }
}
