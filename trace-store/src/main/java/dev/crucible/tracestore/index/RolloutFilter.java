package dev.crucible.tracestore.index;

import dev.crucible.tracestore.common.StoreException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A filter over the index ({@code name}: one rollout, for the store itself). Null fields do not filter. {@code namespaces} is what the caller may list (null: all);
 * {@code labels} must all match. Newest first, at most {@code limit} (1..1000).
 */
public record RolloutFilter(Set<String> namespaces, String name, String environment, String phase, String detector,
                            Map<String, String> labels, Double minReward, Double maxReward, Instant since, Instant until,
                            int limit) {

    public static final int MAX_LIMIT = 1000;

    /** Exactly one rollout. */
    public static RolloutFilter one(String namespace, String name) {
        return new RolloutFilter(Set.of(namespace), name, null, null, null, Map.of(), null, null, null, null, 1);
    }

    public RolloutFilter withNamespaces(Set<String> ns) {
        return new RolloutFilter(ns, name, environment, phase, detector, labels, minReward, maxReward, since, until, limit);
    }

    /**
     * From query parameters ({@code environment, phase, detector, label=k=v (repeated), minReward, maxReward, since,
     * until, limit}); a value that does not parse is refused naming the parameter.
     */
    public static RolloutFilter fromQuery(Function<String, String> one, Function<String, List<String>> all) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String l : all.apply("label")) {
            int eq = l.indexOf('=');
            if (eq <= 0) throw StoreException.badRequest("label '" + l + "' is not key=value");
            labels.put(l.substring(0, eq), l.substring(eq + 1));
        }
        int limit = 100;
        if (one.apply("limit") != null) {
            try {
                limit = Integer.parseInt(one.apply("limit"));
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) throw StoreException.badRequest("limit '" + one.apply("limit") + "' is not 1.." + MAX_LIMIT);
        }
        return new RolloutFilter(null, null, one.apply("environment"), one.apply("phase"), one.apply("detector"), labels,
                dbl("minReward", one.apply("minReward")), dbl("maxReward", one.apply("maxReward")),
                time("since", one.apply("since")), time("until", one.apply("until")), limit);
    }

    private static Double dbl(String field, String v) {
        if (v == null) return null;
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw StoreException.badRequest(field + " '" + v + "' is not a number");
        }
    }

    private static Instant time(String field, String v) {
        if (v == null) return null;
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            throw StoreException.badRequest(field + " '" + v + "' is not an RFC 3339 time (2026-01-31T12:00:00Z)");
        }
    }
}
