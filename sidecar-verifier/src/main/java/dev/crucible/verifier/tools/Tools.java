package dev.crucible.verifier.tools;

import dev.crucible.files.BoundedRead;
import dev.crucible.files.ContainedRoot;
import dev.crucible.files.FileKinds;
import dev.crucible.files.FileRefusal;
import dev.crucible.files.UnsafePathException;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The agent's tools. File tools resolve every path with {@link ContainedRoot}, so no link takes them out of the workspace;
 * they read through {@link BoundedRead} (a byte bound and a deadline; FIFOs, devices and sockets refused before any open)
 * and never open a non-regular file for writing, so no file the agent made can stall or exhaust the host. bash runs there
 * with a timeout and bounded output.
 */
public final class Tools {
    public static final int MAX_WRITE_BYTES = 1024 * 1024;
    /** The largest file edit reads: it holds the file and its edited copy in memory, so it is bounded as a write is. */
    public static final int MAX_EDIT_BYTES = 8 * MAX_WRITE_BYTES;
    private final Path workspace;
    private final Executor executor;
    private final Map<String, String> env;
    private final int maxOutput;
    private final Duration defaultTimeout;
    private final Duration maxTimeout;
    private final List<String> allowed;

    public Tools(Path workspace, Executor executor, Map<String, String> env, int maxOutput, Duration defaultTimeout,
                 Duration maxTimeout, List<String> allowed) {
        this.workspace = workspace;
        this.executor = executor;
        this.env = Map.copyOf(env);
        this.maxOutput = maxOutput;
        this.defaultTimeout = defaultTimeout;
        this.maxTimeout = maxTimeout;
        this.allowed = List.copyOf(allowed);
    }

    public ToolResult run(ToolCall call, LongConsumer onStart) {
        if (call.tool() == null) throw new BadToolCallException("tool: required, one of " + allowed);
        if (!allowed.contains(call.tool())) throw new BadToolCallException("tool: '" + call.tool() + "' is not one of this environment's tools " + allowed);
        long t0 = System.nanoTime();
        try {
            return switch (call.tool()) {
                case "bash" -> bash(call, onStart);
                case "read_file" -> read(call, t0);
                case "write_file" -> write(call, t0);
                case "edit" -> edit(call, t0);
                default -> list(call, t0);
            };
        } catch (UnsafePathException e) {
            throw new BadToolCallException(e.getMessage());
        } catch (IOException e) {
            return new ToolResult("error: " + e.getMessage(), 1, false, ms(t0));
        }
    }

    private ToolResult bash(ToolCall call, LongConsumer onStart) {
        String cmd = call.required("command");
        String cwd = call.string("cwd");
        if (cwd != null) {
            if (cwd.isEmpty() || cwd.indexOf('\0') >= 0) throw new BadToolCallException("args.cwd: a folder of the workspace, relative or absolute, without NUL bytes");
            // The shell changes folder inside the box, where the agent's view already bounds it: the host never opens the path.
            cmd = "cd -- '" + cwd.replace("'", "'\\''") + "' || exit 1\n" + cmd;
        }
        Integer t = call.integer("timeoutSeconds");
        Duration timeout = t == null ? defaultTimeout : Duration.ofSeconds(Math.max(1, t));
        if (timeout.compareTo(maxTimeout) > 0) timeout = maxTimeout;
        ExecRequest req = new ExecRequest(List.of("/bin/bash", "-c", cmd), workspace, env, true, timeout, maxOutput, null, true);
        ExecResult r = executor.run(req, onStart);
        String obs = r.stdout() + (r.truncated() ? "\n[output truncated at " + maxOutput + " bytes]" : "")
                + (r.timedOut() ? "\n[timed out after " + timeout.toSeconds() + "s; process tree killed]" : "");
        return new ToolResult(obs, r.exitCode(), r.truncated(), r.elapsedMs());
    }

    private ToolResult read(ToolCall call, long t0) throws IOException {
        String path = call.required("path");
        refuseSpecial(path);
        byte[] b;
        try {
            b = reader().head(path, maxOutput + 1); // a 6 GiB sparse file costs maxOutput bytes, not 6 GiB
        } catch (FileRefusal r) {
            throw refused(r);
        }
        if (b == null) return new ToolResult("error: no such file: " + path, 1, false, ms(t0));
        boolean trunc = b.length > maxOutput;
        String s = new String(b, 0, Math.min(b.length, maxOutput), StandardCharsets.UTF_8);
        return new ToolResult(s, 0, trunc, ms(t0));
    }

    private ToolResult write(ToolCall call, long t0) throws IOException {
        String content = call.required("content");
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_WRITE_BYTES) throw new BadToolCallException("args.content: larger than " + MAX_WRITE_BYTES + " bytes");
        ContainedRoot root = files();
        Path p;
        try {
            refuseSpecial(call.required("path"));
            p = root.write(call.required("path"), bytes, "args.path");
        } catch (NoSuchFileException e) {
            return new ToolResult("error: cannot write " + e.getMessage(), 1, false, ms(t0));
        }
        return new ToolResult("wrote " + content.length() + " characters to " + root.relativeText(p), 0, false, ms(t0));
    }

    private ToolResult edit(ToolCall call, long t0) throws IOException {
        String path = call.required("path");
        String oldStr = call.required("old_str");
        String newStr = call.string("new_str") == null ? "" : call.string("new_str");
        ContainedRoot root = files();
        refuseSpecial(path);
        byte[] b;
        try {
            b = reader().read(path, MAX_EDIT_BYTES);
        } catch (FileRefusal r) {
            throw refused(r);
        }
        if (b == null) return new ToolResult("error: no such file: " + path, 1, false, ms(t0));
        String s = new String(b, StandardCharsets.UTF_8);
        int first = s.indexOf(oldStr);
        if (oldStr.isEmpty() || first < 0) return new ToolResult("error: old_str not found in " + path, 1, false, ms(t0));
        if (s.indexOf(oldStr, first + 1) >= 0) return new ToolResult("error: old_str occurs more than once; add context to make it unique", 1, false, ms(t0));
        root.write(path, (s.substring(0, first) + newStr + s.substring(first + oldStr.length())).getBytes(StandardCharsets.UTF_8), "args.path");
        return new ToolResult("edited " + path, 0, false, ms(t0));
    }

    private ToolResult list(ToolCall call, long t0) throws IOException {
        String path = call.string("path");
        Path p;
        try {
            p = files().resolve(path == null ? "." : path, "args.path");
        } catch (NoSuchFileException e) {
            p = null;
        }
        if (p != null && Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new BadToolCallException("args.path: '" + path + "' is " + FileKinds.of(p) + ", not a directory; not listed");
        }
        if (p == null || !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) return new ToolResult("error: not a directory: " + path, 1, false, ms(t0));
        Path root = p;
        StringBuilder sb = new StringBuilder();
        // Files.walk does not follow links; the "/" mark does not either, so a link out says nothing about its target.
        try (Stream<Path> s = Files.walk(p, 3)) {
            s.filter(x -> !x.equals(root)).filter(x -> !x.toString().contains("/.git") && !x.toString().contains("__pycache__")).sorted()
                    .forEach(x -> sb.append(root.relativize(x)).append(Files.isDirectory(x, LinkOption.NOFOLLOW_LINKS) ? "/" : "").append('\n'));
        }
        boolean trunc = sb.length() > maxOutput;
        return new ToolResult(trunc ? sb.substring(0, maxOutput) : sb.toString(), 0, trunc, ms(t0));
    }

    /**
     * A FIFO, device or socket at {@code path} (after its in-workspace links) is a 400 naming the path and its kind: opening
     * one for writing blocks until a reader comes (a FIFO) or writes into a device, so none is ever opened. A missing file passes.
     */
    private void refuseSpecial(String path) throws IOException {
        Path p;
        try {
            p = files().resolve(path, "args.path");
        } catch (NoSuchFileException e) {
            return;
        }
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS) || Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) return;
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) throw new BadToolCallException("args.path: '" + path + "' is a directory, not a file");
        throw new BadToolCallException("args.path: '" + path + "' is " + FileKinds.of(p) + "; the file tools only open regular files");
    }

    /** A refused read as a 400 naming the path and why (a FIFO swapped in, a file over the bound, a link out). */
    private static BadToolCallException refused(FileRefusal r) {
        String why = r.kind() == FileRefusal.Kind.TOO_BIG ? " (edit reads at most " + MAX_EDIT_BYTES + " bytes; use bash for larger files)" : "";
        return new BadToolCallException("args.path: " + r.getMessage() + why);
    }

    private BoundedRead reader() throws IOException {
        return BoundedRead.of(workspace, "workspace");
    }

    /** The workspace as a root that paths from the agent cannot leave; a bad path is a 400 naming args.path. */
    private ContainedRoot files() throws IOException {
        return ContainedRoot.of(workspace, "workspace");
    }

    private static long ms(long t0) { return (System.nanoTime() - t0) / 1_000_000; }
}
