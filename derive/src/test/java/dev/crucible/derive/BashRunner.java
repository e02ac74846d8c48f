package dev.crucible.derive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs derived bash the way a runtime would: {@code bash -c SCRIPT} in the workspace with the manifest's env. */
final class BashRunner {
    record Result(int exit, String output) {
    }

    private BashRunner() {
    }

    static Result run(Path dir, String script, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        // Whatever the derived setup installs must already be here: never reach for the network in a test.
        pb.environment().put("PIP_NO_INDEX", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("bash did not finish in 300 s: " + out);
        }
        return new Result(p.exitValue(), out);
    }
}
