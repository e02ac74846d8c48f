package dev.crucible.verifier.exec.shim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shim's wire format: one JSON object per line. Request {"op":"exec",…} is answered by
 * {"pid":N} as soon as the process exists, then {"result":{…}}; {"op":"kill"} by {"killed":N}.
 */
final class ShimProtocol {
    static final ObjectMapper JSON = new ObjectMapper();

    private ShimProtocol() {}

    static String execRequest(ExecRequest r) {
        ObjectNode n = JSON.createObjectNode().put("op", "exec");
        r.argv().forEach(n.putArray("argv")::add);
        n.put("cwd", r.cwd().toString());
        ObjectNode env = n.putObject("env");
        r.env().forEach(env::put);
        n.put("clearEnv", r.clearEnv()).put("timeoutMs", r.timeout().toMillis()).put("maxOutputBytes", r.maxOutputBytes())
                .put("stdin", r.stdin()).put("mergeStderr", r.mergeStderr());
        if (r.resultChannel() != null) n.put("resultChannel", r.resultChannel().toString());
        return n.toString();
    }

    static ExecRequest parseExec(JsonNode n) {
        List<String> argv = new ArrayList<>();
        n.path("argv").forEach(a -> argv.add(a.asText()));
        if (argv.isEmpty()) throw new IllegalArgumentException("argv: required");
        Map<String, String> env = new LinkedHashMap<>();
        n.path("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        return new ExecRequest(argv, Path.of(n.path("cwd").asText("/")), env, n.path("clearEnv").asBoolean(),
                Duration.ofMillis(n.path("timeoutMs").asLong(60_000)), n.path("maxOutputBytes").asInt(ExecRequest.DEFAULT_MAX_OUTPUT),
                n.hasNonNull("stdin") ? n.get("stdin").asText() : null, n.path("mergeStderr").asBoolean(),
                n.hasNonNull("resultChannel") ? Path.of(n.get("resultChannel").asText()) : null);
    }

    static String result(ExecResult r) {
        ObjectNode n = JSON.createObjectNode();
        n.putObject("result").put("exitCode", r.exitCode()).put("stdout", r.stdout()).put("stderr", r.stderr())
                .put("truncated", r.truncated()).put("timedOut", r.timedOut()).put("elapsedMs", r.elapsedMs()).put("pid", r.pid());
        return n.toString();
    }

    static ExecResult parseResult(JsonNode n) {
        JsonNode r = n.get("result");
        return new ExecResult(r.path("exitCode").asInt(), r.path("stdout").asText(), r.path("stderr").asText(), r.path("truncated").asBoolean(),
                r.path("timedOut").asBoolean(), r.path("elapsedMs").asLong(), r.path("pid").asLong());
    }
}
