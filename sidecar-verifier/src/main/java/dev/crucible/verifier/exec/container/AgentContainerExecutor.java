package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.monitor.ObservedProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The sidecar's end of an interactive pod's agent-exec container: the agent's commands (the bash tool)
 * run there, from the environment's image, as the agent's uid, with the workspace and a scratch folder
 * as the only writable places, through the same runner and protocol as grading
 * ({@code grading_runner.py --mode agent}), never in the sidecar's container with its token, run
 * folder, result file and findings.
 *
 * <p>Pids the runner reports are of the agent-exec container's PID namespace, so they are never handed
 * to {@code onStart} (the episode would watch, and kill, this container's processes of those numbers);
 * the runner samples the container's processes instead and {@link #onProcesses} passes them to the
 * monitor. {@link #killAgents} asks the runner to kill them, also in the middle of a command.
 */
public final class AgentContainerExecutor implements Executor, AutoCloseable {
    /** Variables that are the sidecar's own, not the agent's: the agent-exec container has its own (image and pod spec). */
    static final Set<String> SIDECAR_VARIABLES = Set.of("PATH", "HOME", "PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV");
    /** How often the runner reports the container's processes while a command runs (the local sampler's interval). */
    static final Duration SAMPLE = Duration.ofMillis(250);

    private final RunnerSocket runner;
    private final ReentrantLock running = new ReentrantLock();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "agent-container-timer");
        t.setDaemon(true);
        return t;
    });
    private volatile Consumer<List<ObservedProcess>> processes = p -> { };
    private volatile String broken;

    private AgentContainerExecutor(RunnerSocket runner) {
        this.runner = runner;
    }

    /** Listens on {@code socket} for the agent-exec container's runner, which has {@code connectWait} to connect. */
    public static AgentContainerExecutor listen(Path socket, Duration connectWait) throws IOException {
        return new AgentContainerExecutor(RunnerSocket.listen(socket, connectWait, "the agent-exec container"));
    }

    /** Where the processes the runner samples go (the current episode's monitor). */
    public void onProcesses(Consumer<List<ObservedProcess>> sink) {
        this.processes = sink;
    }

    /** What the runner said of itself, once it connected; empty before. */
    public Optional<JsonNode> hello() {
        return runner.hello();
    }

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        running.lock();
        try {
            return runLocked(req);
        } finally {
            running.unlock();
        }
    }

    private ExecResult runLocked(ExecRequest req) {
        if (broken != null) return failed(broken);
        RunnerSocket.Connection c;
        try {
            c = runner.await();
        } catch (IOException e) {
            return failed(e.getMessage());
        }
        ScheduledFuture<?> cut = timers.schedule(c::close, req.timeout().plus(GradingContainerExecutor.ANSWER_GRACE).toMillis(),
                TimeUnit.MILLISECONDS);
        try {
            c.send(request(req).toString());
            for (String line; (line = c.in().readLine()) != null; ) {
                JsonNode n = RunnerSocket.JSON.readTree(line);
                if (n.has("procs")) {
                    processes.accept(observed(n.get("procs")));
                } else if (n.has("result")) {
                    JsonNode r = n.get("result");
                    // pid -1: the runner's pid is of another PID namespace, meaningless here
                    return new ExecResult(r.path("exitCode").asInt(), r.path("stdout").asText(), r.path("stderr").asText(),
                            r.path("truncated").asBoolean(), r.path("timedOut").asBoolean(), r.path("elapsedMs").asLong(), -1);
                } else if (n.has("error")) {
                    return failed("the agent-exec runner refused the command: " + n.get("error").asText());
                }
                // {"pid"} and a late {"killed"} answer: nothing to do here
            }
            broken = "the agent-exec container's runner went away (its connection closed)";
            return failed(broken);
        } catch (IOException | RuntimeException e) {
            broken = "the agent-exec container's runner did not answer: " + e.getMessage();
            return failed(broken);
        } finally {
            cut.cancel(false);
        }
    }

    /**
     * The workspace as cwd, the request's variables but the sidecar's own ones (the container's PATH and
     * HOME are the agent's), the container's environment beneath them; output, stdin and timeout as given.
     */
    private static ObjectNode request(ExecRequest r) {
        ObjectNode n = RunnerSocket.JSON.createObjectNode().put("op", "exec");
        r.argv().forEach(n.putArray("argv")::add);
        n.put("cwd", r.cwd().toAbsolutePath().normalize().toString());
        ObjectNode env = n.putObject("env");
        for (Map.Entry<String, String> e : r.env().entrySet()) {
            if (!SIDECAR_VARIABLES.contains(e.getKey())) env.put(e.getKey(), e.getValue());
        }
        return n.put("clearEnv", false).put("timeoutMs", r.timeout().toMillis()).put("maxOutputBytes", r.maxOutputBytes())
                .put("stdin", r.stdin()).put("mergeStderr", r.mergeStderr()).put("channel", false)
                .put("sampleMs", SAMPLE.toMillis());
    }

    private static List<ObservedProcess> observed(JsonNode procs) {
        List<ObservedProcess> out = new ArrayList<>();
        for (JsonNode p : procs) {
            List<String> fds = new ArrayList<>();
            p.path("fds").forEach(f -> fds.add(f.asText()));
            out.add(new ObservedProcess(p.path("pid").asLong(), p.path("ppid").asLong(), p.path("start").asLong(),
                    p.has("cmd") ? p.get("cmd").asText() : null, fds));
        }
        return out;
    }

    /**
     * Kills every process of the agent-exec container. While a command runs the kill goes over the same
     * connection and ends it (its result comes back as a killed command); between commands the runner
     * answers how many it killed. The roots are this JVM's pids and never the container's: ignored.
     */
    @Override
    public int killAgents(Collection<Long> roots) {
        if (broken != null || runner.hello().isEmpty()) return 0;
        RunnerSocket.Connection c;
        try {
            c = runner.await();
        } catch (IOException e) {
            return 0;
        }
        // busy: another thread's step, or this one's (a finding reported from its process samples made the
        // hack policy terminate): the kill goes out now and the step's own answer ends it
        if (running.isHeldByCurrentThread() || !running.tryLock()) {
            try {
                c.send("{\"op\":\"kill\"}");
            } catch (IOException e) {
                c.close(); // the runner kills everything when its connection ends
            }
            return 1;
        }
        try {
            c.send("{\"op\":\"kill\"}");
            ScheduledFuture<?> cut = timers.schedule(c::close, GradingContainerExecutor.ANSWER_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            try {
                for (String line; (line = c.in().readLine()) != null; ) {
                    JsonNode n = RunnerSocket.JSON.readTree(line);
                    if (n.has("killed")) return n.get("killed").asInt();
                }
            } finally {
                cut.cancel(false);
            }
            broken = "the agent-exec container's runner went away (its connection closed)";
            return 0;
        } catch (IOException | RuntimeException e) {
            broken = "the agent-exec container's runner did not answer a kill: " + e.getMessage();
            return 0;
        } finally {
            running.unlock();
        }
    }

    private static ExecResult failed(String why) {
        return new ExecResult(127, "", "crucible: " + why + "\n", false, false, 0, -1);
    }

    /** Closing the connection tells the runner the rollout is over; it kills what is left and exits. */
    @Override
    public void close() {
        runner.close();
        timers.shutdownNow();
    }
}
