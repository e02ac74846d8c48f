package dev.crucible.console.store;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rollouts view's filters and page, as its URL and the API's query string carry them. A finding filter
 * ({@code detector}, {@code severity}, {@code pattern}) matches a rollout with one finding that has all of them.
 * {@code since}/{@code until} bound result.json's start time (RFC 3339). {@code label}: a label selector
 * ({@link LabelSelector}) over the rollout's labels (result.json's, the Rollout's metadata.labels over the cluster).
 * Every parameter is checked, and a bad one is a 400 naming it.
 */
public record RolloutQuery(String environment, String phase, String detector, String severity, String pattern,
                           Double minReward, Double maxReward, Instant since, Instant until, LabelSelector label, int page, int size) {
    public static final int MAX_SIZE = 500;
    public static final Set<String> PARAMETERS = Set.of("environment", "phase", "detector", "severity", "pattern", "minReward",
            "maxReward", "since", "until", "label", "page", "size");

    public static RolloutQuery parse(Map<String, List<String>> params) {
        for (String k : params.keySet()) {
            if (!PARAMETERS.contains(k)) throw ConsoleError.badRequest("unknown parameter '" + k + "' (known: " + new java.util.TreeSet<>(PARAMETERS) + ")");
        }
        Double min = number(params, "minReward");
        Double max = number(params, "maxReward");
        if (min != null && max != null && min > max) throw ConsoleError.badRequest("minReward " + min + " is above maxReward " + max);
        int page = whole(params, "page", 1, 1, Integer.MAX_VALUE);
        int size = whole(params, "size", 50, 1, MAX_SIZE);
        return new RolloutQuery(one(params, "environment"), one(params, "phase"), one(params, "detector"), one(params, "severity"),
                one(params, "pattern"), min, max, time(params, "since"), time(params, "until"), LabelSelector.parse("label", one(params, "label")),
                page, size);
    }

    public boolean hasFindingFilter() { return detector != null || severity != null || pattern != null; }

    /** Whether {@code r} passes every filter but the page. */
    public boolean matches(RolloutSummary r) {
        if (environment != null && !environment.equals(r.environment())) return false;
        if (phase != null && !phase.equals(r.phase())) return false;
        if (label != null && !label.matches(r.labels())) return false;
        if (minReward != null && (r.reward() == null || r.reward() < minReward)) return false;
        if (maxReward != null && (r.reward() == null || r.reward() > maxReward)) return false;
        if (since != null || until != null) {
            Instant t = startedAt(r);
            if (t == null || (since != null && t.isBefore(since)) || (until != null && t.isAfter(until))) return false;
        }
        return !hasFindingFilter() || r.findings().stream().anyMatch(this::matches);
    }

    public boolean matches(FindingSummary f) {
        return (detector == null || detector.equals(f.detector())) && (severity == null || severity.equals(f.severity()))
                && (pattern == null || pattern.equals(f.pattern()));
    }

    static Instant startedAt(RolloutSummary r) {
        try {
            return r.startedAt() == null ? null : Instant.parse(r.startedAt());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String one(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        if (v == null || v.isEmpty()) return null;
        if (v.size() > 1) throw ConsoleError.badRequest(name + ": given " + v.size() + " times, at most once");
        String s = v.get(0).strip();
        return s.isEmpty() ? null : s;
    }

    private static Double number(Map<String, List<String>> params, String name) {
        String s = one(params, name);
        if (s == null) return null;
        try {
            double d = Double.parseDouble(s);
            if (Double.isNaN(d) || Double.isInfinite(d)) throw new NumberFormatException();
            return d;
        } catch (NumberFormatException e) {
            throw ConsoleError.badRequest(name + ": not a number: '" + clip(s) + "'");
        }
    }

    static int whole(Map<String, List<String>> params, String name, int dflt, int min, int max) {
        String s = one(params, name);
        if (s == null) return dflt;
        try {
            int i = Integer.parseInt(s);
            if (i < min || i > max) throw ConsoleError.badRequest(name + ": " + i + " is outside " + min + ".." + max);
            return i;
        } catch (NumberFormatException e) {
            throw ConsoleError.badRequest(name + ": not a whole number: '" + clip(s) + "'");
        }
    }

    private static Instant time(Map<String, List<String>> params, String name) {
        String s = one(params, name);
        if (s == null) return null;
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw ConsoleError.badRequest(name + ": not an RFC 3339 time such as 2026-11-29T17:00:00Z: '" + clip(s) + "'");
        }
    }

    static String clip(String s) { return s.length() > 80 ? s.substring(0, 80) + "…" : s; }
}
