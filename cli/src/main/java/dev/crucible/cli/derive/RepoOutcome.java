package dev.crucible.cli.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One row of {@code crucible derive --repos}: what a repository's derive process left behind (its exit status,
 * its log, the report it wrote, the baseline run's result.json), read back into the table's columns.
 *
 * @param entry      the list's line
 * @param status     usable, unusable, derived (no --baseline), failed (derive refused) or timeout
 * @param reason     why not usable, or what derive chose when it was (workflow, job)
 * @param tests      passToPass and how the tests are graded, or "-"
 * @param setupSeconds the first baseline run's time before its agent started (toolchains, setup script, warm-ups), or -1 when unknown
 * @param seconds    wall time of the repository's whole derive
 */
record RepoOutcome(RepoList.Entry entry, String status, String reason, String tests, double setupSeconds, double seconds) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RUNS = Pattern.compile("results under (\\S+)\\)");
    private static final Pattern SEE_LOG = Pattern.compile("see (/\\S+\\.log)");
    private static final String PREFIX = "crucible derive: ";

    /** Reads a finished (or killed) derive: {@code exit} is null when it was stopped at the time limit. */
    static RepoOutcome read(RepoList.Entry e, Integer exit, long limitSeconds, Path log, Path report, double seconds) {
        List<String> lines = lines(log);
        JsonNode written = exit == null ? readJson(report) : null;
        if (written != null && written.get("baseline") != null) {
            // stopped after it wrote its verdict, while deleting its scratch (shadcn-ui: 1 GB of node_modules): the
            // verdict stands, and the row says where the time went
            RepoOutcome o = read(e, written.path("baseline").path("usable").asBoolean() ? 0 : 1, limitSeconds, log, report, seconds);
            return new RepoOutcome(e, o.status(), o.reason() + " (derive was stopped at the " + limitSeconds
                    + " s limit after writing this, while deleting its scratch)", o.tests(), o.setupSeconds(), seconds);
        }
        if (exit == null) { // a run stopped mid-setup records a setupMs that is not its setup's length: none shown
            return new RepoOutcome(e, "timeout", "stopped after the " + limitSeconds + " s limit, at: " + lastSaid(lines) + stoppedIn(lines),
                    "-", -1, seconds);
        }
        JsonNode first = firstResult(lines);
        double setup = setupSeconds(first);
        JsonNode r = readJson(report);
        String chose = r == null ? "" : r.path("workflow").asText() + " job " + r.path("job").asText();
        JsonNode base = r == null ? null : r.get("baseline");
        if (exit == 2 || r == null) {
            return new RepoOutcome(e, "failed", "exit " + exit + ": " + lastSaid(lines), "-", setup, seconds);
        }
        if (base == null) {
            return new RepoOutcome(e, "derived", chose + "; verifier: " + oneLine(r.path("verifier").path("command").asText()),
                    "-", setup, seconds);
        }
        String graded = base.path("perTest").asBoolean() ? "per test" : "one execution";
        String tests = base.path("tests").asInt() == 0 ? "none reported"
                : base.path("perTest").asBoolean()
                ? base.path("passToPass").asInt() + " passToPass of " + base.path("tests").asInt() + ", "
                        + base.path("excluded").size() + " excluded (" + graded + ")"
                : graded;
        if (base.path("usable").asBoolean()) {
            return new RepoOutcome(e, "usable", chose + "; verifier: " + oneLine(r.path("verifier").path("command").asText()), tests, setup, seconds);
        }
        return new RepoOutcome(e, "unusable", chose + ": " + withLogLine(base.path("unusable").asText()) + graderSaid(first),
                tests, setup, seconds);
    }

    /** The last line derive said about itself, else the log's last line: the reason a failed row shows. */
    private static String lastSaid(List<String> lines) {
        String said = null;
        String last = "(no output)";
        for (String l : lines) {
            if (l.isBlank()) continue;
            last = l.strip();
            if (l.startsWith(PREFIX) && !l.startsWith(PREFIX + "wrote ")) said = l.substring(PREFIX.length()).strip();
        }
        String s = said != null ? said : last;
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    /** "... see DIR/setup.log" says where, not what: the log's last line (e.g. "pnpm: command not found") is added. */
    static String withLogLine(String reason) {
        Matcher m = SEE_LOG.matcher(reason);
        if (!m.find()) return reason;
        String last = lastTold(lines(Path.of(m.group(1))));
        if (last.isEmpty()) return reason;
        return reason + " (last line: " + (last.length() > 200 ? last.substring(0, 200) + "…" : last) + ")";
    }

    /** The runner's own notes in setup.log ("[setup stopped at its limit of 180 s]", "[ran past 179 s]"): they say when, not where. */
    private static final java.util.regex.Pattern MARKER = java.util.regex.Pattern.compile(
            "\\[(setup stopped at its limit|ran past|output cut at)[^\\]]*\\]");

    /** A log's last line that says what was running: blank lines and the runner's limit notes skipped. */
    static String lastTold(List<String> log) {
        for (int i = log.size() - 1; i >= 0; i--) {
            String l = log.get(i).strip();
            if (!l.isEmpty() && !MARKER.matcher(l).matches()) return l;
        }
        return "";
    }

    /**
     * Which baseline run and which of its phases a stopped derive was in, from the run folders the batch kept: a run
     * without result.json is the one stopped; it was in setup until its agent.log exists (the no-op agent ends at
     * once), grading after. Setup's last line says what it was doing (cargo or Go downloading, compiling ...).
     */
    static String stoppedIn(List<String> lines) {
        Path runs = null;
        for (String l : lines) {
            Matcher m = RUNS.matcher(l);
            if (m.find()) runs = Path.of(m.group(1));
        }
        if (runs == null) return "";
        for (int n = 2; n >= 1; n--) {
            Path run = runs.resolve("baseline-" + n);
            if (!Files.isDirectory(run)) continue;
            JsonNode res = readJson(run.resolve("result.json"));
            // a run the batch stops still writes result.json on its way out, saying so ("stopped by Ctrl-C before grading")
            String said = res == null ? "" : res.path("message").asText("");
            if (said.startsWith("stopped")) return "; baseline run " + n + " was " + said;
            if (res != null) return "; baseline run " + n + " had finished";
            if (Files.exists(run.resolve("agent.log"))) return "; in baseline run " + n + ": grading (setup and the no-op agent done)";
            String last = lastTold(lines(run.resolve("setup.log")));
            return "; in baseline run " + n + ": setup" + (last.isEmpty() ? "" : " (setup.log's last line: "
                    + (last.length() > 160 ? last.substring(0, 160) + "…" : last) + ")");
        }
        return "";
    }

    /**
     * A run's setup as a user waits for it: from its start to its agent's (startedAt → runningAt). timings.setupMs is
     * the setup script's alone, without the toolchains provisioned before it and the warm-ups after it (lazygit at
     * load 20: 0.04 s of script, 8 min before its agent ran). setupMs where the agent never started.
     */
    static double setupSeconds(JsonNode result) {
        if (result == null) return -1;
        JsonNode t = result.path("timings");
        try {
            if (t.hasNonNull("startedAt") && t.hasNonNull("runningAt")) {
                return java.time.Duration.between(java.time.Instant.parse(t.get("startedAt").asText()),
                        java.time.Instant.parse(t.get("runningAt").asText())).toMillis() / 1000.0;
            }
        } catch (java.time.format.DateTimeParseException ex) {
            // fall through to the script's own time
        }
        JsonNode ms = t.get("setupMs");
        return ms == null || !ms.isNumber() ? -1 : ms.asDouble() / 1000;
    }

    /** The first baseline run's result.json: its folder is the one derive names on stderr. */
    private static JsonNode firstResult(List<String> lines) {
        for (String l : lines) {
            Matcher m = RUNS.matcher(l);
            if (!m.find()) continue;
            Path first = Path.of(m.group(1)).resolve("baseline-1");
            if (!Files.isDirectory(first)) return null;
            try (Stream<Path> files = Files.walk(first)) {
                return readJson(files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElse(null));
            } catch (IOException | java.io.UncheckedIOException ex) {
                return null;
            }
        }
        return null;
    }

    /**
     * "Graded fail" names no cause when the suite reported no tests; the grader's own reason does (alacritty: a git
     * dependency cargo cannot fetch offline), so a row whose run reported none carries it.
     */
    static String graderSaid(JsonNode result) {
        if (result == null || result.path("tests").path("total").asInt() > 0) return "";
        String why = result.path("verifierReport").path("reason").asText("").replaceAll("\u001b\\[[0-9;]*m", "")
                .replaceAll("\\s+", " ").strip();
        if (why.isEmpty()) return "";
        return " (grader: " + (why.length() > 300 ? why.substring(0, 300) + "…" : why) + ")";
    }

    private static JsonNode readJson(Path p) {
        if (p == null || !Files.isRegularFile(p)) return null;
        try {
            return JSON.readTree(p.toFile());
        } catch (IOException ex) {
            return null;
        }
    }

    private static List<String> lines(Path log) {
        try {
            // decoded leniently: a tool's UTF-8 quotes must not garble the row, and bad bytes must not fail it
            return new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        } catch (IOException ex) {
            return List.of();
        }
    }

    private static String oneLine(String command) {
        String first = command.lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.equals("set -e")).findFirst().orElse(command.strip());
        first = command.lines().filter(l -> !l.isBlank()).count() > 1 ? first + " …" : first;
        return first.length() > 120 ? first.substring(0, 120) + "…" : first;
    }
}
