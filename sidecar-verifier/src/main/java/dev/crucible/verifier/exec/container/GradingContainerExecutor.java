package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

/**
 * The sidecar's end of the rollout pod's grading container: graded commands run there, from the
 * environment's image, through the runner ({@code dev.crucible.contract.GradingContainer}), never in
 * the sidecar's own container with its token, findings and result file.
 *
 * <p>The sidecar listens on a socket on the volume only it and the grading container mount; the first
 * connection is the runner's (it starts with the pod, before any graded code exists) and the socket is
 * removed at once, so nothing graded can connect later. Commands go one at a time over that connection.
 * The result channel stays the grader's: the FIFO {@code ResultChannel} made is opened here and removed
 * from the volume before the command starts; the command's fd 3 is an anonymous pipe of the runner,
 * whose bytes come back over the connection and are written into the FIFO as they arrive.
 */
public final class GradingContainerExecutor implements Executor, AutoCloseable {
    private static final ObjectMapper JSON = RunnerSocket.JSON;
    /** Beyond the command's own timeout, how long the runner may take to answer before grading gives up on it. */
    static final Duration ANSWER_GRACE = Duration.ofSeconds(30);
    /** How long a channel the runner reports still open is kept open, so the grader sees a leftover writer as locally. */
    static final Duration HOLD_OPEN = Duration.ofSeconds(5);

    private final RunnerSocket runner;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grading-container-timer");
        t.setDaemon(true);
        return t;
    });
    private String broken;
    private volatile OracleContainerHost oracle;

    private GradingContainerExecutor(RunnerSocket runner) {
        this.runner = runner;
    }

    /** The pod's oracle-worker container, where the isolated oracle's workers start (closed with this executor). */
    public GradingContainerExecutor withOracle(OracleContainerHost host) {
        this.oracle = host;
        return this;
    }

    /** Where the isolated oracle's workers start for commands run here; empty: the pod has no oracle-worker container. */
    public Optional<dev.crucible.verifier.grade.oracle.WorkerHost> oracle() {
        return Optional.ofNullable(oracle);
    }

    /** Listens on {@code socket} for the grading container's runner, which has {@code connectWait} to connect. */
    public static GradingContainerExecutor listen(Path socket, Duration connectWait) throws IOException {
        return new GradingContainerExecutor(RunnerSocket.listen(socket, connectWait, "the grading container"));
    }

    /** What the runner said of itself (interpreter, box, hardening), once it connected; empty before. */
    public Optional<JsonNode> hello() {
        return runner.hello();
    }

    @Override
    public synchronized ExecResult run(ExecRequest req, LongConsumer onStart) {
        if (broken != null) return failed(broken);
        RunnerSocket.Connection c;
        try {
            c = runner.await();
        } catch (IOException e) {
            return failed(e.getMessage());
        }
        Optional<GradingShare.Layout> layout = GradingShare.of(req.cwd());
        OutputStream channel = null;
        try {
            if (layout.isPresent()) GradingShare.prepare(layout.get(), req.writableExcept());
            if (req.resultChannel() != null) channel = openAndUnlink(req.resultChannel());
        } catch (IOException e) {
            closeQuietly(channel);
            return failed("could not prepare the grading volume: " + e.getMessage());
        }
        ScheduledFuture<?> cut = timers.schedule(c::close,
                req.timeout().plus(ANSWER_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        boolean holdOpen = false;
        try {
            ObjectNode request = request(req, layout, channel != null);
            // the oracle's FIFO-and-scratch folder stays writable in a runner's box (the grading process's tmp_path lives there)
            if (oracle != null && request.has("writable")) ((ArrayNode) request.get("writable")).add(dev.crucible.contract.OracleContainer.IO);
            c.send(request.toString());
            for (String line; (line = c.in().readLine()) != null; ) {
                JsonNode n = JSON.readTree(line);
                if (n.has("pid")) {
                    onStart.accept(n.get("pid").asLong());
                } else if (n.has("channel")) {
                    if (channel != null) channel.write(Base64.getDecoder().decode(n.get("channel").asText()));
                } else if (n.has("result")) {
                    JsonNode r = n.get("result");
                    if (channel != null && r.path("channelOverflow").asBoolean()) {
                        channel.write("\ncrucible: the result channel was cut off by the grading runner\n".getBytes(StandardCharsets.UTF_8));
                    }
                    holdOpen = r.path("channelOpen").asBoolean();
                    return new ExecResult(r.path("exitCode").asInt(), r.path("stdout").asText(), r.path("stderr").asText(),
                            r.path("truncated").asBoolean(), r.path("timedOut").asBoolean(), r.path("elapsedMs").asLong(), r.path("pid").asLong());
                } else if (n.has("error")) {
                    return failed("the grading runner refused the command: " + n.get("error").asText());
                }
            }
            broken = "the grading container's runner went away (its connection closed)";
            return failed(broken);
        } catch (IOException | RuntimeException e) {
            broken = "the grading container's runner did not answer: " + e.getMessage();
            return failed(broken);
        } finally {
            cut.cancel(false);
            if (holdOpen) {
                OutputStream held = channel;
                timers.schedule(() -> closeQuietly(held), HOLD_OPEN.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                closeQuietly(channel);
            }
        }
    }

    private static ObjectNode request(ExecRequest r, Optional<GradingShare.Layout> layout, boolean channel) {
        ObjectNode n = JSON.createObjectNode().put("op", "exec");
        r.argv().forEach(n.putArray("argv")::add);
        // outside the grading layout (the interpreter probe) the runner uses a scratch folder of its own
        if (layout.isPresent()) n.put("cwd", r.cwd().toAbsolutePath().normalize().toString());
        ObjectNode env = n.putObject("env");
        r.env().forEach(env::put);
        n.put("clearEnv", r.clearEnv()).put("timeoutMs", r.timeout().toMillis()).put("maxOutputBytes", r.maxOutputBytes())
                .put("stdin", r.stdin()).put("mergeStderr", r.mergeStderr()).put("channel", channel);
        layout.ifPresent(l -> {
            ArrayNode writable = n.putArray("writable").add(l.results().toString());
            ArrayNode readOnly = n.putArray("readOnly");
            if (r.writableExcept() == null) {
                readOnly.add(l.grade().toString());
            } else { // the runner binds writable folders first: the grader's files land on top of the tree
                writable.add(l.grade().toString());
                r.writableExcept().forEach(f -> readOnly.add(f.toString()));
            }
            readOnly.add(l.support().toString());
        });
        return n;
    }

    /**
     * Opens the grader's FIFO for writing (this returns once {@code ResultChannel}'s reader has it open)
     * and removes its name, so nothing in the grading container can open it by path.
     */
    private OutputStream openAndUnlink(Path fifo) throws IOException {
        CompletableFuture<FileOutputStream> open = CompletableFuture.supplyAsync(() -> {
            try {
                return new FileOutputStream(fifo.toFile());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            FileOutputStream out = open.get(10, TimeUnit.SECONDS);
            Files.delete(fifo);
            return out;
        } catch (TimeoutException e) {
            try (RandomAccessFile unblock = new RandomAccessFile(fifo.toFile(), "rw")) {
                closeQuietly(open.join()); // our pending open returns now that a reader end exists
            }
            throw new IOException("the result channel " + fifo + " has no reader");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted opening the result channel");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("cannot open the result channel " + fifo + ": " + e.getCause().getMessage());
        }
    }

    private static ExecResult failed(String why) {
        return new ExecResult(127, "", "crucible: " + why + "\n", false, false, 0, -1);
    }

    private static void closeQuietly(OutputStream s) {
        if (s == null) return;
        try {
            s.close();
        } catch (IOException ignored) {
            // the reader is gone: nothing left to tell it
        }
    }

    /** Closing the connection tells the runner grading is over; it kills what is left and exits. */
    @Override
    public void close() {
        OracleContainerHost o = oracle;
        if (o != null) o.close();
        runner.close();
        timers.shutdownNow();
    }
}
