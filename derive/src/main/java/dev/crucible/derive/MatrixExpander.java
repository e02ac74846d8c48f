package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Expands {@code strategy.matrix} the way GitHub does: the cartesian product of the value lists in key
 * order (first key outermost), minus every combination an {@code exclude} entry matches (partially),
 * then each {@code include} entry added to every combination whose original values it does not
 * overwrite, or appended as a combination of its own when it fits none.
 */
final class MatrixExpander {
    private MatrixExpander() {
    }

    /** Thrown with a message that the caller places at the matrix's line. */
    static final class MatrixException extends Exception {
        MatrixException(String message) {
            super(message);
        }
    }

    static List<Map<String, Object>> expand(Object matrix) throws MatrixException {
        if (matrix == null) {
            List<Map<String, Object>> one = new ArrayList<>();
            one.add(new LinkedHashMap<>());
            return one;
        }
        if (!(matrix instanceof Map<?, ?> m)) {
            throw new MatrixException("the matrix is computed at run time (" + matrix
                    + "); give every value with --matrix key=value");
        }
        List<Map<String, Object>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        List<String> originalKeys = new ArrayList<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (key.equals("include") || key.equals("exclude")) {
                continue;
            }
            if (!(e.getValue() instanceof List<?> values)) {
                throw new MatrixException("matrix key '" + key + "' is not a list (" + e.getValue()
                        + "); give its value with --matrix " + key + "=VALUE");
            }
            originalKeys.add(key);
            List<Map<String, Object>> next = new ArrayList<>();
            for (Map<String, Object> c : combos) {
                for (Object v : values) {
                    Map<String, Object> n = new LinkedHashMap<>(c);
                    n.put(key, v);
                    next.add(n);
                }
            }
            combos = next;
        }
        if (originalKeys.isEmpty()) {
            combos.clear();
        }
        for (Map<String, Object> exclude : entries(m.get("exclude"), "exclude")) {
            combos.removeIf(c -> exclude.entrySet().stream()
                    .allMatch(x -> sameValue(c.get(x.getKey()), x.getValue())));
        }
        for (Map<String, Object> include : entries(m.get("include"), "include")) {
            boolean added = false;
            for (Map<String, Object> c : combos) {
                if (!c.containsKey(ORIGINAL_MARK) && fits(c, include, originalKeys)) {
                    c.putAll(include);
                    added = true;
                }
            }
            if (!added) {
                Map<String, Object> n = new LinkedHashMap<>(include);
                n.put(ORIGINAL_MARK, true);
                combos.add(n);
            }
        }
        combos.forEach(c -> c.remove(ORIGINAL_MARK));
        if (combos.isEmpty()) {
            throw new MatrixException("the matrix has no combinations left after 'exclude'");
        }
        return combos;
    }

    /** Marks combinations created by an include entry: later includes never extend them. */
    private static final String ORIGINAL_MARK = "\u0000include";

    /** An include entry fits when it agrees with every original matrix value it names. */
    private static boolean fits(Map<String, Object> combo, Map<String, Object> include, List<String> originalKeys) {
        for (Map.Entry<String, Object> e : include.entrySet()) {
            if (originalKeys.contains(e.getKey()) && !sameValue(combo.get(e.getKey()), e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameValue(Object a, Object b) {
        return Objects.equals(a, b);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> entries(Object list, String what) throws MatrixException {
        List<Map<String, Object>> out = new ArrayList<>();
        if (list == null) {
            return out;
        }
        if (!(list instanceof List<?> l)) {
            throw new MatrixException("matrix '" + what + "' must be a list of mappings");
        }
        for (Object o : l) {
            if (!(o instanceof Map)) {
                throw new MatrixException("matrix '" + what + "' must be a list of mappings, found " + o);
            }
            out.add((Map<String, Object>) o);
        }
        return out;
    }

    /** A combination as {@code k=v, ...} for messages; nested values as JSON. */
    static String describe(Map<String, Object> combo) {
        List<String> parts = new ArrayList<>();
        combo.forEach((k, v) -> parts.add(k + "=" + ExpressionValues.text(v)));
        return parts.isEmpty() ? "(no matrix)" : String.join(", ", parts);
    }

    /** Whether a combination has every value the user asked for with --matrix. */
    static boolean matches(Map<String, Object> combo, Map<String, String> wanted) {
        for (Map.Entry<String, String> w : wanted.entrySet()) {
            if (!combo.containsKey(w.getKey())
                    || !ExpressionValues.text(combo.get(w.getKey())).equals(w.getValue())) {
                return false;
            }
        }
        return true;
    }
}
