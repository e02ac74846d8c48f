package dev.crucible.verifier.exec.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sidecar's end of one runner ({@code grading_runner.py}) in another container: it listens on a
 * socket on a volume only the sidecar and that container mount, takes the first connection (the
 * runner's: it starts with the pod, before any untrusted code exists), removes the socket at once so
 * nothing can connect later, and reads the runner's hello. Used for the grading container and, in
 * interactive pods, for the agent-exec container.
 */
final class RunnerSocket implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final long HELLO_SECONDS = 60;

    /** The runner's connection: JSON lines both ways; {@code hello} is what it said of itself. */
    record Connection(SocketChannel channel, BufferedReader in, JsonNode hello) {
        /**
         * Writes one line on the channel itself: a stream over it would wait on the channel's blocking
         * lock, which the thread reading the runner's answer holds, so a kill sent during a command
         * would wait for the command's end.
         */
        void send(String line) throws IOException {
            ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            synchronized (this) {
                while (b.hasRemaining()) channel.write(b);
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private final Path socket;
    private final ServerSocketChannel server;
    private final CompletableFuture<Connection> connection = new CompletableFuture<>();
    private final long connectDeadline;
    private final String who;

    private RunnerSocket(Path socket, ServerSocketChannel server, Duration connectWait, String who) {
        this.socket = socket;
        this.server = server;
        this.connectDeadline = System.nanoTime() + connectWait.toNanos();
        this.who = who;
        Thread t = new Thread(this::acceptOne, who.replace(' ', '-') + "-accept");
        t.setDaemon(true);
        t.start();
    }

    /** Listens on {@code socket} for the runner of {@code who} ("the grading container"), which has {@code connectWait}. */
    static RunnerSocket listen(Path socket, Duration connectWait, String who) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        // the runner may run under another uid; only the containers mounting the volume can see the socket
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        return new RunnerSocket(socket, server, connectWait, who);
    }

    Path path() { return socket; }

    private void acceptOne() {
        try {
            SocketChannel ch = server.accept();
            server.close();
            Files.deleteIfExists(socket);
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
            Thread cut = new Thread(() -> {
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(HELLO_SECONDS));
                    if (!connection.isDone()) ch.close();
                } catch (InterruptedException | IOException ignored) {
                    // hello arrived, or the channel is gone
                }
            });
            cut.setDaemon(true);
            cut.start();
            String line = in.readLine();
            cut.interrupt();
            JsonNode hello = line == null ? null : JSON.readTree(line);
            if (hello == null || !hello.has("hello")) throw new IOException("the runner did not say hello: " + line);
            if ("grading".equals(hello.path("mode").asText()) && hello.path("network").isNull()) {
                // neither a box nor the seccomp filter: graded code shares the pod's network (the sidecar's API refuses it without the token)
                System.err.println("crucible-sidecar: WARNING: graded commands are not kept off the pod's network: "
                        + hello.path("boxProblem").asText() + "; " + hello.path("networkProblem").asText());
            }
            connection.complete(new Connection(ch, in, hello));
        } catch (IOException | RuntimeException e) {
            connection.completeExceptionally(e);
        }
    }

    /** What the runner said of itself, once it connected; empty before. */
    Optional<JsonNode> hello() {
        return connection.isDone() && !connection.isCompletedExceptionally() ? Optional.of(connection.join().hello()) : Optional.empty();
    }

    /** The connection, waiting for it until the connect deadline; an exception whose message says why there is none. */
    Connection await() throws IOException {
        try {
            return connection.get(Math.max(0, connectDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IOException(who + "'s runner never connected to " + socket + " (its image needs python3; see " + who + "'s log)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + who);
        } catch (ExecutionException e) {
            throw new IOException(who + "'s runner: " + e.getCause().getMessage());
        }
    }

    /** Closing the connection tells the runner it is over; it kills what is left and exits. */
    @Override
    public void close() {
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // best effort
        }
        connection.thenAccept(Connection::close);
        connection.completeExceptionally(new IOException("closed"));
    }
}
