package dev.crucible.cli.run;

import dev.crucible.verifier.Episode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The agent's process as a local attempt sees it: started, alive (zombies count as ended), stopped, its exit status, its tree's root. */
final class AgentProcesses {
    private AgentProcesses() {
    }

    /**
     * {@link #alive} counts a zombie as ended, but the JVM's reaper may not have collected it yet,
     * and {@code exitValue()} throws until it has: wait for that (it is a matter of milliseconds).
     */
    static int exitCodeOf(Process p) {
        try {
            if (p.waitFor(5, TimeUnit.SECONDS)) {
                return p.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    /** The agent's process and the pump that writes its output to agent.log with a cap. */
    record Started(Process process, AgentLog log) {}

    /**
     * Starts the agent command in the workspace under the sandbox, output to {@code log} through {@link AgentLog}
     * (head and tail kept, the middle of an endless output cut), no input, only {@code env}; in its own session
     * unless the sandbox makes one, so the kill sweep finds the whole tree.
     */
    static Started start(Sandbox sandbox, List<String> command, Path workspace, Map<String, String> env, Path log) throws IOException {
        return start(sandbox, command, workspace, env, log, in -> in);
    }

    /** {@code tee}: what the output passes through on its way to the log (the trajectory's output events). */
    static Started start(Sandbox sandbox, List<String> command, Path workspace, Map<String, String> env, Path log,
                         java.util.function.UnaryOperator<java.io.InputStream> tee) throws IOException {
        List<String> argv = new ArrayList<>();
        if (!sandbox.startsOwnSession() && Files.isExecutable(Path.of("/usr/bin/setsid"))) argv.add("/usr/bin/setsid");
        sandbox.prepare(); // what setup made goes to the sandbox's user
        argv.addAll(sandbox.wrap(command, workspace, env));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            return new Started(p, AgentLog.start(tee.apply(p.getInputStream()), log));
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** Kills what is left of the agent (its episode's processes) and waits up to 5 s for its root to end. */
    static void stop(Episode episode, ProcessHandle p, Progress progress) throws InterruptedException {
        episode.killAgentProcesses();
        try {
            p.onExit().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            progress.info("the agent did not end within 5 s of SIGKILL");
        }
    }

    static boolean alive(ProcessHandle p) {
        if (!p.isAlive()) return false;
        try {
            return dev.crucible.snapshot.target.ProcFs.state(p.pid()) != 'Z';
        } catch (RuntimeException gone) {
            return false;
        }
    }

    /** The restored agent is no child of ours: its PID 1 left the status in the attempt folder (-1 if it could not). */
    static int readExit(Path exitFile) {
        for (int i = 0; i < 20; i++) { // the shell writes it just before it exits; allow for the write to land
            try {
                String t = Files.readString(exitFile).trim();
                if (!t.isEmpty()) return Integer.parseInt(t);
            } catch (IOException | NumberFormatException e) {
                // not there yet
            }
            sleep(50);
        }
        return -1;
    }

    /** PID 1 of the agent's PID namespace: the only child of {@code unshare --fork}. */
    static long treeRoot(Process unshare) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            List<Long> kids = dev.crucible.snapshot.target.ProcFs.children(unshare.pid());
            if (!kids.isEmpty()) return kids.get(0);
            if (!unshare.isAlive()) break;
            Thread.sleep(20);
        }
        throw new IllegalStateException("unshare (pid " + unshare.pid() + ") started no agent process");
    }

    /**
     * Grades with {@code verify}; while a trainer's step still runs (it was killed at the deadline, so it ends
     * shortly) the episode answers busy: {@code killSteps} again and retry, for up to 10 s.
     */
    static dev.crucible.verifier.VerifyReport gradeWhenFree(java.util.function.Supplier<dev.crucible.verifier.VerifyReport> verify, Runnable killSteps) {
        for (int tries = 0; ; tries++) {
            try {
                return verify.get();
            } catch (dev.crucible.verifier.StepBusyException busy) {
                if (tries >= 50) throw busy;
                killSteps.run();
                sleep(200);
            }
        }
    }

    /**
     * A pid this CLI started, with its start time when recorded (-1: gone by then). pid_max is 32768 on some machines and a
     * busy one wraps it in minutes: by the time a watchdog or Ctrl-C kills, the number may name another process.
     */
    record Recorded(long pid, long startTicks) {
        static final Recorded NONE = new Recorded(0, -1);

        /** {@code pid} as it is now (call it while the process is known to run: right after starting it). */
        static Recorded now(long pid) {
            return pid <= 0 ? NONE : new Recorded(pid, dev.crucible.verifier.exec.ProcessTreeKiller.startsOf(List.of(pid)).get(pid));
        }
    }

    /**
     * SIGKILLs the trees of these recorded processes (NONE: none), without the episode: what a watchdog or Ctrl-C may do while
     * the episode is stuck. A pid that now names a process with another start time is another process, and is left alone.
     */
    static void kill(Recorded... recorded) {
        Map<Long, Long> roots = new java.util.HashMap<>();
        for (Recorded r : recorded) if (r.pid() > 0) roots.put(r.pid(), r.startTicks());
        if (!roots.isEmpty()) dev.crucible.verifier.exec.ProcessTreeKiller.killStarted(roots);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
