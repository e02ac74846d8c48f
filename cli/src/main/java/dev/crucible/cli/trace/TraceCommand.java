package dev.crucible.cli.trace;

import dev.crucible.cli.Main;
import dev.crucible.trajectory.AtifExport;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TraceFilter;
import dev.crucible.trajectory.TraceText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code crucible trace DIR}: an attempt's trajectory as a readable timeline, filtered, or as one ATIF document. */
@Command(name = "trace", mixinStandardHelpOptions = true,
        description = {"Print the trajectory of an attempt (the folder crucible run wrote, or its trajectory/ folder) as a timeline.",
            "Each line: #number, time (UTC), kind, what happened; '← #N' names the event it follows from (a finding's file change,",
            "a file change's process). Exit status 1 when parts of the trajectory could not be read (each is named)."})
public final class TraceCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "An attempt folder (with trajectory/ in it) or a trajectory folder.")
    Path dir;

    @Option(names = "--kind", split = ",", paramLabel = "KIND",
            description = "Only these kinds (or prefixes): process, output, file, finding, step, reset, verify, grading, outcome, trajectory.")
    List<String> kinds = new ArrayList<>();

    @Option(names = "--steps", paramLabel = "A..B", description = "Only timeline numbers A to B (#A..#B; either end may be left out).")
    String steps;

    @Option(names = "--finding", arity = "0..1", fallbackValue = "", paramLabel = "TEXT",
            description = "Only findings (whose detector, rule or path contains TEXT) and the events that caused them, with diffs.")
    String finding;

    @Option(names = "--diff", description = "Print each file change's unified diff under it.")
    boolean diffs;

    @Option(names = "--atif", description = "Print the whole trajectory as one ATIF v1.8 document (JSON) instead of the timeline.")
    boolean atif;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // links are not followed (the reader refuses them): a folder an agent left may link its segments anywhere (host round 9)
        java.nio.file.LinkOption noLink = java.nio.file.LinkOption.NOFOLLOW_LINKS;
        Path t = Files.isDirectory(dir.resolve("trajectory"), noLink) ? dir.resolve("trajectory") : dir;
        if (!Files.isDirectory(t.resolve("segments"), noLink)) {
            err.println("crucible trace: " + dir + " holds no trajectory (neither " + dir.resolve("trajectory/segments") + " nor " + dir.resolve("segments")
                    + " is a folder; a link is not followed)");
            return Main.EXIT_INVALID;
        }
        long from = 1;
        long to = Long.MAX_VALUE;
        if (steps != null) {
            var m = java.util.regex.Pattern.compile("(\\d*)\\.\\.(\\d*)|(\\d+)").matcher(steps.trim());
            if (!m.matches()) {
                err.println("crucible trace: --steps: expected A..B, A.., ..B or N, got '" + steps + "'");
                return Main.EXIT_INVALID;
            }
            try {
                if (m.group(3) != null) from = to = Long.parseLong(m.group(3));
                else {
                    if (!m.group(1).isEmpty()) from = Long.parseLong(m.group(1));
                    if (!m.group(2).isEmpty()) to = Long.parseLong(m.group(2));
                }
            } catch (NumberFormatException e) {
                err.println("crucible trace: --steps: a number past " + Long.MAX_VALUE + " in '" + steps + "'");
                return Main.EXIT_INVALID;
            }
            if (from > to) {
                err.println("crucible trace: --steps: " + from + " is after " + to + " in '" + steps + "'");
                return Main.EXIT_INVALID;
            }
        }
        for (String k : kinds) {
            if (EventKind.ALL.stream().noneMatch(x -> x.equals(k) || x.startsWith(k + "."))) {
                err.println("crucible trace: --kind: no event kind '" + k + "' (kinds: " + new java.util.TreeSet<>(EventKind.ALL) + ")");
                return Main.EXIT_INVALID;
            }
        }
        List<String> problems = new ArrayList<>();
        if (atif) {
            var o = new java.io.ByteArrayOutputStream();
            problems.addAll(AtifExport.export(t, dir.getFileName().toString(), new AtifExport.AgentInfo("unknown", "unknown", Map.of()),
                    new java.io.OutputStream() {
                        @Override
                        public void write(int b) { o.write(b); flushIfBig(); }

                        @Override
                        public void write(byte[] b, int off, int len) { o.write(b, off, len); flushIfBig(); }

                        private void flushIfBig() {
                            if (o.size() < 1 << 16) return;
                            out.print(o.toString(java.nio.charset.StandardCharsets.UTF_8));
                            o.reset();
                        }
                    }));
            out.println(o.toString(java.nio.charset.StandardCharsets.UTF_8));
        } else {
            boolean withDiffs = diffs || finding != null;
            new TraceFilter(kinds, from, to, finding).select(t, e -> print(out, e, withDiffs), problems::add);
        }
        out.flush();
        problems.forEach(p -> err.println("crucible trace: " + TraceText.oneLine(p, 1000)));
        return problems.isEmpty() ? 0 : 1;
    }

    private static void print(PrintWriter out, TraceEvent e, boolean diffs) {
        String time;
        try {
            time = TIME.format(Instant.parse(e.time()));
        } catch (RuntimeException ex) {
            time = TraceText.oneLine(e.time(), 24);
        }
        out.printf("#%-6d %s  %-14s %s%s%s%n", e.seq(), time, TraceText.oneLine(e.kind(), 20), e.step() == null ? "" : "[step " + e.step() + "] ",
                TraceText.summary(e), e.cause() == null ? "" : "  ← #" + e.cause());
        if (diffs && EventKind.FILE.equals(e.kind())) {
            String d = e.text("diff");
            if (d != null) d.lines().forEach(l -> out.println("         │ " + TraceText.oneLine(l, 240)));
            else if (e.text("diffNote") != null) out.println("         │ (" + TraceText.oneLine(e.text("diffNote"), 240) + ")");
        }
    }
}
