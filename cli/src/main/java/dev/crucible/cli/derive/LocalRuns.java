package dev.crucible.cli.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs an environment through the real local runtime ({@code crucible run}: workspace from the source
 * commit, setup, the agent under the sandbox, grading with the hidden tests) and reads its result.json.
 * Fix tasks use it to learn which tests fail before and pass after the fix, and to check the finished
 * task the way a trainer will run it.
 */
final class LocalRuns {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What one run gave.
     *
     * @param reward  the trainable reward (null when the run produced none)
     * @param phase   Succeeded, Failed ...
     * @param tests   test id to status (passed, failed, error, skipped ...), in report order
     * @param message why it failed, when it did (setup error, grading error)
     * @param seconds wall time of the whole run
     * @param messages test id to its failure text, for tests that did not pass
     */
    record Outcome(Double reward, String phase, Map<String, String> tests, String message, double seconds, Map<String, String> messages,
                   java.util.List<String> counted) {
        Outcome(Double reward, String phase, Map<String, String> tests, String message, double seconds) {
            this(reward, phase, tests, message, seconds, Map.of());
        }

        Outcome(Double reward, String phase, Map<String, String> tests, String message, double seconds, Map<String, String> messages) {
            this(reward, phase, tests, message, seconds, messages, java.util.List.of());
        }

        boolean passed(String id) {
            String s = tests.get(id);
            return "passed".equals(s) || "xpassed".equals(s);
        }
    }

    private LocalRuns() {
    }

    /** Runs {@code manifest} once with {@code agentCommand} as the agent, results under {@code out}. */
    static Outcome run(Path manifest, String agentCommand, Path out) throws IOException {
        return run(java.util.List.of("run", "-f", manifest.toString(), "--agent-cmd", agentCommand, "--out", out.toString()));
    }

    private static Outcome run(java.util.List<String> args) throws IOException {
        Path out = Path.of(args.get(args.indexOf("--out") + 1));
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        var cl = Main.commandLine();
        cl.setOut(new PrintWriter(stdout, true));
        cl.setErr(new PrintWriter(stderr, true));
        long start = System.nanoTime();
        int exit = cl.execute(args.toArray(String[]::new));
        double seconds = (System.nanoTime() - start) / 1e9;
        Path result = find(out);
        if (result == null) {
            String err = stderr.toString().strip();
            return new Outcome(null, "NotRun", Map.of(), "crucible run exited " + exit + ": "
                    + (err.isEmpty() ? stdout.toString().strip() : err).lines().reduce((a, b) -> b).orElse(""), seconds);
        }
        JsonNode r = JSON.readTree(result.toFile());
        Map<String, String> tests = new LinkedHashMap<>();
        Map<String, String> messages = new LinkedHashMap<>();
        for (JsonNode t : r.path("tests").path("details")) {
            tests.put(t.path("id").asText(), t.path("status").asText().toLowerCase(java.util.Locale.ROOT));
            if (t.hasNonNull("message")) messages.put(t.path("id").asText(), t.path("message").asText());
        }
        Double reward = r.path("reward").isNumber() ? r.path("reward").asDouble() : null;
        String message = r.path("message").asText(r.path("reason").asText(""));
        // the grading's own reason ("test command timed out after 150s") says which phase stopped; the phase message may not
        String graded = r.path("verifierReport").path("reason").asText("");
        if (!graded.isEmpty() && !message.contains(graded)) message = message.isEmpty() ? graded : message + " (grading: " + graded + ")";
        return new Outcome(reward, r.path("phase").asText(), tests, message, seconds, messages, counted(r));
    }

    /** The run's counted findings (any severity but info: each floors the reward), as "severity detector/rule: evidence (path)". */
    private static java.util.List<String> counted(JsonNode r) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (JsonNode f : r.path("hackFindings")) {
            if (f.path("severity").asText("info").equals("info")) continue;
            String rule = f.path("rule").asText("");
            String ev = f.path("evidence").asText("");
            out.add(f.path("severity").asText() + " " + f.path("detector").asText() + (rule.isEmpty() ? "" : "/" + rule) + ": "
                    + (ev.length() > 240 ? ev.substring(0, 240) + "…" : ev) + (f.hasNonNull("path") ? " (" + f.path("path").asText() + ")" : ""));
        }
        return java.util.List.copyOf(out);
    }

    private static Path find(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return null;
        }
        try (Stream<Path> files = Files.walk(out)) {
            return files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElse(null);
        }
    }

    /**
     * Runs {@code manifest} once with {@code patch} applied to the workspace before a no-op agent starts: the patch
     * travels in a Rollout file beside the manifest ({@code spec.patches[0].diff}, applied by crucible run through a
     * file), never in a process argument, where a large reference patch failed with "Argument list too long".
     */
    static Outcome runPatched(Path manifest, String patch, Path out) throws IOException {
        JsonNode env = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(manifest.toFile());
        String name = env.path("metadata").path("name").asText();
        if (name.isEmpty()) throw new IOException(manifest + ": metadata.name: missing (the reference run's Rollout names its environment)");
        Map<String, Object> rollout = new LinkedHashMap<>();
        rollout.put("apiVersion", env.path("apiVersion").asText("crucible.dev/v1alpha1"));
        rollout.put("kind", "Rollout");
        rollout.put("metadata", Map.of("name", name + "-reference"));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("environmentRef", Map.of("name", name));
        spec.put("mode", "embedded");
        spec.put("agent", Map.of("command", java.util.List.of("/bin/sh", "-c", "true")));
        spec.put("patches", java.util.List.of(Map.of("diff", patch.endsWith("\n") ? patch : patch + "\n")));
        rollout.put("spec", spec);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Path file = out.toAbsolutePath().getParent().resolve(out.getFileName() + "-rollout.yaml");
        new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().writeValue(file.toFile(), rollout);
        return run(java.util.List.of("run", "-f", manifest.toString(), "-f", file.toString(), "--agent-cmd", "true", "--out", out.toString()));
    }
}
