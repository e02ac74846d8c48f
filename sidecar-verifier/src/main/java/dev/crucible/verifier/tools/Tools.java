package dev.crucible.verifier.tools;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/** The agent's tools. Files stay inside the workspace; bash runs there with a timeout and bounded output. */
public final class Tools {
    public static final int MAX_WRITE_BYTES = 1024 * 1024;
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
        } catch (IOException e) {
            return new ToolResult("error: " + e.getMessage(), 1, false, ms(t0));
        }
    }

    private ToolResult bash(ToolCall call, LongConsumer onStart) {
        String cmd = call.required("command");
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
        Path p = WorkspacePaths.resolve(workspace, call.required("path"));
        if (!Files.isRegularFile(p)) return new ToolResult("error: no such file: " + call.string("path"), 1, false, ms(t0));
        byte[] b;
        try (var in = Files.newInputStream(p)) {
            b = in.readNBytes(maxOutput + 1);
        }
        boolean trunc = b.length > maxOutput;
        String s = new String(b, 0, Math.min(b.length, maxOutput), StandardCharsets.UTF_8);
        return new ToolResult(s, 0, trunc, ms(t0));
    }

    private ToolResult write(ToolCall call, long t0) throws IOException {
        String content = call.required("content");
        if (content.getBytes(StandardCharsets.UTF_8).length > MAX_WRITE_BYTES) throw new BadToolCallException("args.content: larger than " + MAX_WRITE_BYTES + " bytes");
        Path p = WorkspacePaths.resolve(workspace, call.required("path"));
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return new ToolResult("wrote " + content.length() + " characters to " + workspace.toRealPath().relativize(p), 0, false, ms(t0));
    }

    private ToolResult edit(ToolCall call, long t0) throws IOException {
        Path p = WorkspacePaths.resolve(workspace, call.required("path"));
        String oldStr = call.required("old_str");
        String newStr = call.string("new_str") == null ? "" : call.string("new_str");
        if (!Files.isRegularFile(p)) return new ToolResult("error: no such file: " + call.string("path"), 1, false, ms(t0));
        String s = Files.readString(p);
        int first = s.indexOf(oldStr);
        if (oldStr.isEmpty() || first < 0) return new ToolResult("error: old_str not found in " + call.string("path"), 1, false, ms(t0));
        if (s.indexOf(oldStr, first + 1) >= 0) return new ToolResult("error: old_str occurs more than once; add context to make it unique", 1, false, ms(t0));
        Files.writeString(p, s.substring(0, first) + newStr + s.substring(first + oldStr.length()));
        return new ToolResult("edited " + call.string("path"), 0, false, ms(t0));
    }

    private ToolResult list(ToolCall call, long t0) throws IOException {
        String path = call.string("path");
        Path p = WorkspacePaths.resolve(workspace, path == null ? "." : path);
        if (!Files.isDirectory(p)) return new ToolResult("error: not a directory: " + path, 1, false, ms(t0));
        Path root = p;
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.walk(p, 3)) {
            s.filter(x -> !x.equals(root)).filter(x -> !x.toString().contains("/.git") && !x.toString().contains("__pycache__")).sorted()
                    .forEach(x -> sb.append(root.relativize(x)).append(Files.isDirectory(x) ? "/" : "").append('\n'));
        }
        boolean trunc = sb.length() > maxOutput;
        return new ToolResult(trunc ? sb.substring(0, maxOutput) : sb.toString(), 0, trunc, ms(t0));
    }

    private static long ms(long t0) { return (System.nanoTime() - t0) / 1_000_000; }
}
