package dev.crucible.verifier.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Reward-hack rules on the syntax tree of Python files, and the test-runner sections of config files,
 * through the bundled helper package {@code source_rules} ({@link SourceRulesFiles}), which is handed the contents the
 * monitor read (contained and bounded), never a path to open. The helper runs as {@code python -I -S -B -c}
 * (no site, no PYTHON* variables, no byte code), in the sidecar's own process space, never through
 * the agent's executor; it parses with {@code ast}, {@code tomllib} and {@code configparser} and
 * never imports or executes what it reads. Files it cannot parse get {@code ok=false}; the caller
 * falls back to the text rules for them. One helper process per instance is kept running between
 * requests ({@link SyntaxHelper}; {@link #warm} at reset, {@link #close} when the monitor stops).
 */
public final class SyntaxRules {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_SECONDS = 60;
    private static final int BATCH = 400;
    private static final long BATCH_BYTES = 16 << 20;
    private static final byte[] PING = "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    /** Interpreters already probed (one probe per interpreter and process, not per reset). */
    private static final Map<String, Boolean> USABLE = new java.util.concurrent.ConcurrentHashMap<>();

    /** One rule match: {@code rule} is the stable id a hack policy can name (severity overrides, ignore). */
    public record Hit(String rule, String detector, String severity, int line, String evidence) {
        /** The key a file's counts use: growth of it over reset is what gets reported. */
        public String countKey() { return rule + "/" + severity; }
    }

    /**
     * {@code ok=false}: could not parse (syntax of another Python version, not Python at all). {@code imports}:
     * the modules (and "path:" files) it may import or run; {@code dynamic}: why it may import anything (a
     * computed name), or null.
     */
    public record FileResult(boolean ok, String error, List<Hit> hits, List<String> imports, String dynamic) {
        public FileResult(boolean ok, String error, List<Hit> hits) { this(ok, error, hits, List.of(), null); }

        public Map<String, Integer> counts() {
            Map<String, Integer> m = new LinkedHashMap<>();
            for (Hit h : hits) m.merge(h.countKey(), 1, Integer::sum);
            return m;
        }
    }

    /** The test-runner sections of a config file as canonical JSON, or ok=false when it does not parse. */
    public record Sections(boolean ok, String error, String json) {}

    private final String python;
    private SyntaxHelper helper; // guarded by this

    private SyntaxRules(String python) { this.python = python; }

    /**
     * The first usable interpreter among the candidates (the environment's, then python3 on the
     * sidecar's PATH), or null. A candidate inside {@code untrusted} (a virtualenv in the workspace)
     * is skipped: its binary is the agent's to replace.
     */
    public static SyntaxRules find(List<String> candidates, Path untrusted) {
        for (String c : candidates) {
            if (c == null || c.isBlank()) continue;
            String exe = c;
            if (c.contains("/")) {
                try {
                    Path real = Path.of(c).toRealPath();
                    if (untrusted != null && real.startsWith(untrusted.toRealPath())) continue;
                    exe = real.toString();
                } catch (IOException | RuntimeException e) {
                    continue;
                }
            }
            SyntaxRules r = new SyntaxRules(exe);
            // Only a working interpreter is remembered: a failed probe (fork refused, interrupted, a shim that
            // picked another version for a moment) must not turn the syntax rules off for the rest of the JVM.
            if (USABLE.containsKey(exe) || Boolean.TRUE.equals(r.works())) {
                USABLE.put(exe, Boolean.TRUE);
                return r;
            }
        }
        return null;
    }

    public String python() { return python; }

    /** True or false once the interpreter answered; null when the probe was interrupted (the monitor stopping). */
    private Boolean works() {
        try {
            Process p = new ProcessBuilder(python, "-I", "-S", "-B", "-c",
                    "import sys, ast, json; sys.exit(0 if sys.version_info >= (3, 8) else 3)").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Analyses sources (report name to content, as the caller read it: the helper opens no file); a
     * helper failure leaves the rest absent. Requests are cut at {@link #BATCH} files or
     * {@link #BATCH_BYTES} of source.
     */
    public Map<String, FileResult> analyse(Map<String, byte[]> sources) {
        Map<String, FileResult> out = new LinkedHashMap<>();
        List<Map.Entry<String, byte[]>> all = new ArrayList<>(sources.entrySet());
        int i = 0;
        while (i < all.size()) {
            ObjectNode req = JSON.createObjectNode();
            ArrayNode arr = req.putArray("files");
            long bytes = 0;
            for (; i < all.size() && arr.size() < BATCH && (arr.size() == 0 || bytes + all.get(i).getValue().length <= BATCH_BYTES); i++) {
                arr.addObject().put("b64", all.get(i).getValue()).put("rel", all.get(i).getKey());
                bytes += all.get(i).getValue().length;
            }
            JsonNode res = run(req);
            if (res == null) continue;
            for (JsonNode f : res.path("files")) {
                List<Hit> hits = new ArrayList<>();
                for (JsonNode h : f.path("hits")) {
                    hits.add(new Hit(h.path("rule").asText(), h.path("detector").asText(), h.path("severity").asText(), h.path("line").asInt(),
                            h.path("evidence").asText()));
                }
                List<String> imports = new ArrayList<>();
                for (JsonNode m : f.path("imports")) imports.add(m.asText());
                String dynamic = f.path("dynamic").isTextual() ? f.path("dynamic").asText() : null;
                out.put(f.path("rel").asText(), new FileResult(f.path("ok").asBoolean(), f.path("error").asText(null), hits, imports, dynamic));
            }
        }
        return out;
    }

    /** Test-runner sections of pyproject.toml / setup.cfg / tox.ini (by the name {@code rel}), from the content read by the caller. */
    public Sections sections(byte[] content, String rel) {
        ObjectNode req = JSON.createObjectNode();
        req.putArray("configs").addObject().put("b64", content).put("rel", rel);
        JsonNode res = run(req);
        if (res == null || res.path("configs").isEmpty()) return new Sections(false, "helper failed", null);
        JsonNode c = res.path("configs").get(0);
        return new Sections(c.path("ok").asBoolean(), c.path("error").asText(null), c.path("sections").asText(null));
    }

    /**
     * Starts the helper process now (at reset) and waits until it answers an empty request, so that no
     * scan of the episode, the one before grading included, waits for Python to start.
     */
    public synchronized void warm() {
        if (helper != null && helper.alive()) return;
        try {
            helper = SyntaxHelper.start(python, SourceRulesFiles.commandLine());
        } catch (IOException e) {
            helper = null; // the next request tries again, and falls back to the text rules if that fails too
            return;
        }
        if (helper.ask(PING, TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS)).isEmpty()) close();
    }

    /** Stops the helper process; a later request starts a new one. */
    public synchronized void close() {
        if (helper != null) helper.kill();
        helper = null;
    }

    /**
     * One request to the warm helper. A helper found dead (exited since the last request) is replaced and
     * asked once more; one that does not answer in time is killed and not asked again for this request
     * (a file built to make the parser hang would hang the next one too).
     */
    private synchronized JsonNode run(ObjectNode req) {
        byte[] line;
        try {
            line = JSON.writeValueAsBytes(req);
        } catch (IOException e) {
            return null;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            boolean fresh = helper == null || !helper.alive();
            if (fresh) {
                try {
                    helper = SyntaxHelper.start(python, SourceRulesFiles.commandLine());
                } catch (IOException e) {
                    helper = null;
                    return null;
                }
            }
            long t0 = System.nanoTime();
            Optional<byte[]> out = helper.ask(line, TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            if (out.isPresent()) {
                try {
                    return JSON.readTree(out.get());
                } catch (IOException e) {
                    close();
                    return null;
                }
            }
            close();
            if (fresh || System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(1)) return null;
        }
        return null;
    }
}
