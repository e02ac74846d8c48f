package dev.crucible.console.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rollouts view's label filter, a subset of a Kubernetes label selector as {@code kubectl get -l} takes it:
 * comma-separated terms {@code key=value} (also {@code key==value}), {@code key!=value}, {@code key} (has the label) and
 * {@code !key} (lacks it); every term must hold. Keys and values are checked against Kubernetes' label syntax, so a
 * bad one is a 400 naming {@code label} rather than a filter that silently matches nothing.
 */
public record LabelSelector(List<Term> terms) {
    public enum Op { EQUALS, NOT_EQUALS, EXISTS, NOT_EXISTS }

    public record Term(String key, Op op, String value) {
        boolean matches(Map<String, String> labels) {
            String v = labels == null ? null : labels.get(key);
            return switch (op) {
                case EQUALS -> value.equals(v);
                case NOT_EQUALS -> !value.equals(v);
                case EXISTS -> v != null;
                case NOT_EXISTS -> v == null;
            };
        }

        @Override
        public String toString() {
            return switch (op) {
                case EQUALS -> key + "=" + value;
                case NOT_EQUALS -> key + "!=" + value;
                case EXISTS -> key;
                case NOT_EXISTS -> "!" + key;
            };
        }
    }

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Pattern PREFIX = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** Far above any selector a person types; a longer one is refused, not parsed. */
    static final int MAX_TERMS = 20;

    /** The selector of {@code text}, or null when it is empty; a 400 naming {@code field} and the bad term otherwise. */
    public static LabelSelector parse(String field, String text) {
        if (text == null || text.isBlank()) return null;
        List<Term> terms = new ArrayList<>();
        for (String raw : text.split(",", -1)) {
            String t = raw.strip();
            if (t.isEmpty()) throw ConsoleError.badRequest(field + ": an empty term in '" + RolloutQuery.clip(text) + "' (terms are comma-separated)");
            if (terms.size() == MAX_TERMS) throw ConsoleError.badRequest(field + ": more than " + MAX_TERMS + " terms");
            Term term;
            int ne = t.indexOf("!=");
            int eq = t.indexOf('=');
            if (ne >= 0) term = new Term(key(field, t.substring(0, ne)), Op.NOT_EQUALS, value(field, t.substring(ne + 2)));
            else if (eq >= 0) {
                String v = t.startsWith("==", eq) ? t.substring(eq + 2) : t.substring(eq + 1);
                term = new Term(key(field, t.substring(0, eq)), Op.EQUALS, value(field, v));
            } else if (t.startsWith("!")) term = new Term(key(field, t.substring(1)), Op.NOT_EXISTS, null);
            else term = new Term(key(field, t), Op.EXISTS, null);
            terms.add(term);
        }
        return new LabelSelector(List.copyOf(terms));
    }

    public boolean matches(Map<String, String> labels) {
        for (Term t : terms) if (!t.matches(labels)) return false;
        return true;
    }

    @Override
    public String toString() {
        return String.join(",", terms.stream().map(Term::toString).toList());
    }

    private static String key(String field, String raw) {
        String k = raw.strip();
        int slash = k.indexOf('/');
        String prefix = slash < 0 ? null : k.substring(0, slash);
        String name = slash < 0 ? k : k.substring(slash + 1);
        boolean ok = NAME.matcher(name).matches() && (prefix == null || (prefix.length() <= 253 && PREFIX.matcher(prefix).matches()));
        if (!ok) {
            throw ConsoleError.badRequest(field + ": '" + RolloutQuery.clip(k) + "' is not a label key (a name of at most 63 letters, digits, "
                    + "'-', '_' or '.', optionally after a DNS prefix and '/', such as team or crucible.dev/suite)");
        }
        return k;
    }

    private static String value(String field, String raw) {
        String v = raw.strip();
        if (!v.isEmpty() && !NAME.matcher(v).matches()) {
            throw ConsoleError.badRequest(field + ": '" + RolloutQuery.clip(v) + "' is not a label value (at most 63 letters, digits, '-', '_' or '.')");
        }
        return v;
    }
}
