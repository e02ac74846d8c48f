package dev.crucible.verifier.bench;

import dev.crucible.verifier.exec.GradingPhases;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Where graded runs spent their time, each phase the median over the runs (so the phases need not add
 * up to the median total), in milliseconds:
 * <ul>
 * <li>{@code kill}: the sweep of agent processes; {@code scan}: the monitor's last process sample, which
 *     {@code verify} waits for; {@code scan_bg}: its last file scan (syntax rules included) and the
 *     protected-file diff, which run beside the graded command, and {@code scan_wait} how long grading
 *     still waited for them after the command; {@code tree}: pristine check and grading tree;</li>
 * <li>{@code setup}: reporter files and the result channel; {@code box_open}: cgroups, ownership,
 *     the box's command line; {@code box_start}: launch until the reporter's first statement (launcher,
 *     bwrap, and the interpreter's own start, which a bare run pays too: {@code bare_start} is that start
 *     alone, a bare {@code python3 -I} launched as the bare run launches it);</li>
 * <li>{@code pytest}: the reporter's first statement to session end, of which {@code reporter} is the
 *     reporter's own work (import-time snapshot, audit hook handlers, checks); {@code exit}: session end
 *     until the command's exit is seen;</li>
 * <li>{@code box_close}: killing what is left, removing cgroups; {@code parse}: reading and checking the
 *     channel; {@code other}: the rest of grading (JUnit cross-check, scoring); {@code cleanup}: removing
 *     the grading tree, comparing protected files;</li>
 * <li>{@code oracle_wait}: of {@code pytest}, how long the isolated oracle's calls waited for a worker to come up
 *     (the start-up not hidden behind pytest's own; from the trusted side's record); {@code oracle_fallback}: the
 *     in-process run of tests that could not run split (0 when none); {@code oracle_crosscheck}: the cross-check run of a
 *     grade that earned something (IsolatedTestSuite; 0 when none); {@code inprocess_box_start}, {@code inprocess_pytest},
 *     {@code inprocess_exit}: those phases of the same suite graded in-process (the bench's comparison run).</li>
 * </ul>
 * {@code box_start}, {@code pytest} and {@code exit} come from the graded process's clock: shown, never graded.
 */
public record PhaseBreakdown(Map<String, Double> ms) {
    static final List<String> ORDER = List.of("kill", "scan", "scan_bg", "scan_wait", "tree", "setup", "box_open", "box_start", "bare_start", "pytest", "reporter", "exit",
            "box_close", "parse", "other", "cleanup", "boxed_bare", "oracle_wait", "oracle_fallback", "oracle_crosscheck", "inprocess_box_start", "inprocess_pytest", "inprocess_exit");

    static PhaseBreakdown of(List<GradingPhases> runs) {
        Map<String, ToDoubleFunction<GradingPhases>> f = new LinkedHashMap<>();
        f.put("kill", p -> p.ms("kill"));
        f.put("scan", p -> p.ms("scan"));
        f.put("scan_bg", p -> p.ms("scan_bg"));
        f.put("scan_wait", p -> p.ms("scan_wait"));
        f.put("tree", p -> p.ms("tree"));
        f.put("setup", p -> p.ms("setup"));
        f.put("box_open", p -> p.ms("box_open"));
        f.put("box_start", p -> p.msBetween("launch", "reporter_start"));
        f.put("pytest", p -> p.msBetween("reporter_start", "reporter_end"));
        f.put("reporter", p -> p.ms("reporter_import") + p.ms("reporter_audit") + p.ms("reporter_checks"));
        f.put("exit", p -> p.msBetween("reporter_end", "exit"));
        f.put("box_close", p -> p.ms("box_close"));
        f.put("parse", p -> p.ms("parse"));
        f.put("other", p -> p.ms("grade") - p.ms("setup") - p.ms("box_open") - p.ms("command") - p.ms("box_close") - p.ms("parse") - p.ms("scan_wait"));
        f.put("cleanup", p -> p.ms("cleanup"));
        f.put("oracle_wait", p -> p.ms("oracle_wait"));
        f.put("oracle_fallback", p -> p.ms("oracle_fallback"));
        f.put("oracle_crosscheck", p -> p.ms("oracle_crosscheck"));
        Map<String, Double> out = new LinkedHashMap<>();
        f.forEach((name, fn) -> {
            List<Double> xs = new ArrayList<>();
            for (GradingPhases p : runs) {
                double v = fn.applyAsDouble(p);
                if (!Double.isNaN(v)) xs.add(v);
            }
            out.put(name, xs.isEmpty() ? Double.NaN : median(xs));
        });
        return new PhaseBreakdown(out);
    }

    /** This breakdown with one more figure. */
    PhaseBreakdown with(String phase, double value) {
        Map<String, Double> m = new LinkedHashMap<>(ms);
        m.put(phase, value);
        return new PhaseBreakdown(m);
    }

    /** {@code phases_ms suite=NAME runs=N kill=… scan=… …} ("-" for a phase that was not seen). */
    String line(String suite, int runs) {
        StringBuilder s = new StringBuilder("phases_ms suite=").append(suite).append(" runs=").append(runs);
        for (String k : ORDER) {
            Double v = ms.get(k);
            s.append(' ').append(k).append('=').append(v == null || v.isNaN() ? "-" : String.format(Locale.ROOT, "%.1f", v));
        }
        return s.toString();
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
