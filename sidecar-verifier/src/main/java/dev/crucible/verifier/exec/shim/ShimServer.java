package dev.crucible.verifier.exec.shim;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.exec.ProcessTable;
import dev.crucible.verifier.exec.ProcessTreeKiller;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-container exec shim: runs in the environment container (same user as the agent, no
 * privileges) and executes the sidecar's commands there, over a Unix socket on a volume both
 * containers mount. Every command gets its own session; "kill" ends every session the shim
 * started, and with {@code --container} every other process of its user in the container too.
 */
public final class ShimServer implements AutoCloseable {
    private final Path socket;
    private final boolean wholeContainer;
    private final LocalExecutor executor = new LocalExecutor();
    private final Set<Long> sessions = ConcurrentHashMap.newKeySet();
    private ServerSocketChannel server;
    private Thread acceptor;

    public ShimServer(Path socket, boolean wholeContainer) {
        this.socket = socket;
        this.wholeContainer = wholeContainer;
    }

    public static void main(String[] args) throws Exception {
        Path sock = null;
        boolean container = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--socket") && i + 1 < args.length) sock = Path.of(args[++i]);
            else if (args[i].equals("--container")) container = true;
            else {
                System.err.println("crucible-shim: unexpected argument '" + args[i] + "' (usage: --socket PATH [--container])");
                System.exit(2);
            }
        }
        if (sock == null) {
            System.err.println("crucible-shim: --socket PATH: required");
            System.exit(2);
        }
        ShimServer s = new ShimServer(sock, container);
        s.start();
        s.acceptor.join();
    }

    public void start() throws IOException {
        Files.deleteIfExists(socket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        socket.toFile().setReadable(true, true);
        socket.toFile().setWritable(true, true);
        acceptor = new Thread(this::acceptLoop, "crucible-shim-accept");
        acceptor.start();
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel ch = server.accept();
                Thread t = new Thread(() -> serve(ch), "crucible-shim-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(SocketChannel ch) {
        try (ch; BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
             Writer out = new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8)) {
            String line = in.readLine();
            if (line == null) return;
            JsonNode req = ShimProtocol.JSON.readTree(line);
            switch (req.path("op").asText()) {
                case "exec" -> {
                    ExecResult r = executor.run(ShimProtocol.parseExec(req), pid -> {
                        sessions.add(pid);
                        send(out, "{\"pid\":" + pid + "}");
                    });
                    send(out, ShimProtocol.result(r));
                }
                case "kill" -> send(out, "{\"killed\":" + killAll() + "}");
                default -> send(out, "{\"error\":\"op: expected exec or kill\"}");
            }
        } catch (IOException | RuntimeException e) {
            // the sidecar went away mid-request; its command was killed with its session
        }
    }

    private int killAll() {
        int n = ProcessTreeKiller.killAll(Set.copyOf(sessions));
        if (wholeContainer) {
            long self = ProcessHandle.current().pid();
            Set<Long> keep = ConcurrentHashMap.newKeySet();
            keep.add(self);
            ProcessHandle.current().parent().ifPresent(p -> keep.add(p.pid()));
            keep.add(1L);
            long uid = uid(self);
            for (ProcessTable.Stat s : ProcessTable.all()) {
                if (!keep.contains(s.pid()) && uid(s.pid()) == uid) {
                    ProcessHandle.of(s.pid()).ifPresent(ProcessHandle::destroyForcibly);
                    n++;
                }
            }
        }
        return n;
    }

    private static long uid(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (l.startsWith("Uid:")) return Long.parseLong(l.split("\\s+")[1]);
            }
        } catch (IOException | RuntimeException ignored) {
            // gone
        }
        return -1;
    }

    private static void send(Writer out, String line) {
        try {
            out.write(line);
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        ProcessTreeKiller.killAll(Set.copyOf(sessions));
        server.close();
        Files.deleteIfExists(socket);
    }
}
