package dev.crucible.verifier.exec.shim;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.function.LongConsumer;

/** The sidecar's side of the shim: runs commands in the environment container. */
public final class ShimExecutor implements Executor {
    private final Path socket;

    public ShimExecutor(Path socket) { this.socket = socket; }

    @Override
    public ExecResult run(ExecRequest request, LongConsumer onStart) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            Writer out = new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8);
            out.write(ShimProtocol.execRequest(request));
            out.write('\n');
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                JsonNode n = ShimProtocol.JSON.readTree(line);
                if (n.has("pid")) onStart.accept(n.get("pid").asLong());
                else if (n.has("result")) return ShimProtocol.parseResult(n);
                else if (n.has("error")) return new ExecResult(127, "", "shim: " + n.get("error").asText(), false, false, 0, -1);
            }
            return new ExecResult(127, "", "shim closed the connection without a result", false, false, 0, -1);
        } catch (IOException e) {
            return new ExecResult(127, "", "cannot reach the exec shim at " + socket + ": " + e.getMessage(), false, false, 0, -1);
        }
    }

    /** Asks the shim to kill every session it started (and, in container mode, all other agent processes). */
    @Override
    public int killAgents(Collection<Long> roots) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            Writer out = new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8);
            out.write("{\"op\":\"kill\"}\n");
            out.flush();
            String line = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8)).readLine();
            return line == null ? 0 : ShimProtocol.JSON.readTree(line).path("killed").asInt();
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the exec shim at " + socket + " to kill agent processes: " + e.getMessage(), e);
        }
    }
}
