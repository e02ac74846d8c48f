package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Beyond the command's own timeout, how long the runner may take to answer before grading gives up on it. */
    static final Duration ANSWER_GRACE = Duration.ofSeconds(30);
    /** How long a channel the runner reports still open is kept open, so the grader sees a leftover writer as locally. */
    static final Duration HOLD_OPEN = Duration.ofSeconds(5);

    private final Path socket;
    private final ServerSocketChannel server;
    private final CompletableFuture<Connection> connection = new CompletableFuture<>();
    private final long connectDeadline;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grading-container-timer");
        t.setDaemon(true);
        return t;
    });
    private String broken;

    private record Connection(SocketChannel channel, BufferedReader in, Writer out, JsonNode hello) {}

    private GradingContainerExecutor(Path socket, ServerSocketChannel server, Duration connectWait) {
        this.socket = socket;
        this.server = server;
        this.connectDeadline = System.nanoTime() + connectWait.toNanos();
        Thread t = new Thread(this::acceptOne, "grading-container-accept");
        t.setDaemon(true);
        t.start();
    }

    /** Listens on {@code socket} for the grading container's runner, which has {@code connectWait} to connect. */
    public static GradingContainerExecutor listen(Path socket, Duration connectWait) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        // the runner runs under another uid; only the two containers mounting the volume can see the socket
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        return new GradingContainerExecutor(socket, server, connectWait);
    }

    private void acceptOne() {
        try {
            SocketChannel ch = server.accept();
            server.close();
            Files.deleteIfExists(socket);
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
            ScheduledFuture<?> cut = timers.schedule(() -> close(ch), 60, TimeUnit.SECONDS);
            String line = in.readLine();
            cut.cancel(false);
            JsonNode hello = line == null ? null : JSON.readTree(line);
            if (hello == null || !hello.has("hello")) throw new IOException("the runner did not say hello: " + line);
            connection.complete(new Connection(ch, in, new java.io.OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8), hello));
        } catch (IOException | RuntimeException e) {
            connection.completeExceptionally(e);
        }
    }

    /** What the runner said of itself (interpreter, box, hardening), once it connected; empty before. */
    public Optional<JsonNode> hello() {
        return connection.isDone() && !connection.isCompletedExceptionally() ? Optional.of(connection.join().hello()) : Optional.empty();
    }

    @Override
    public synchronized ExecResult run(ExecRequest req, LongConsumer onStart) {
        if (broken != null) return failed(broken);
        Connection c;
        try {
            c = connection.get(Math.max(0, connectDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return failed("the grading container's runner never connected to " + socket
                    + " (its image needs python3; see the grading container's log)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted while waiting for the grading container");
        } catch (java.util.concurrent.ExecutionException e) {
            return failed("the grading container's runner: " + e.getCause().getMessage());
        }
        Optional<GradingShare.Layout> layout = GradingShare.of(req.cwd());
        OutputStream channel = null;
        try {
            if (layout.isPresent()) GradingShare.prepare(layout.get());
            if (req.resultChannel() != null) channel = openAndUnlink(req.resultChannel());
        } catch (IOException e) {
            closeQuietly(channel);
            return failed("could not prepare the grading volume: " + e.getMessage());
        }
        ScheduledFuture<?> cut = timers.schedule(() -> close(c.channel()),
                req.timeout().plus(ANSWER_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        boolean holdOpen = false;
        try {
            c.out().write(request(req, layout, channel != null).toString());
            c.out().write('\n');
            c.out().flush();
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
            n.putArray("writable").add(l.results().toString());
            n.putArray("readOnly").add(l.grade().toString()).add(l.support().toString());
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

    private static void close(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // already closed
        }
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
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // best effort
        }
        connection.thenAccept(c -> close(c.channel()));
        connection.completeExceptionally(new IOException("closed"));
        timers.shutdownNow();
    }
}
