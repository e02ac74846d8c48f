package dev.crucible.derive;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.List;
import java.util.Map;

/**
 * What expression values mean, as GitHub defines it: truthiness, text form, loose equality and number
 * coercion. Values are null, Boolean, Double, String, Map, List, or one of the two "not known here"
 * kinds ({@link Unknown}, {@link ShellVariable}), which make any comparison unknown.
 */
final class ExpressionValues {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ExpressionValues() {
    }

    /** Truthiness as GitHub defines it, or null when unknown. */
    static Boolean truthy(Object v) {
        if (v instanceof Unknown || v instanceof ShellVariable) {
            return null;
        }
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof Double d) {
            return d != 0 && !d.isNaN();
        }
        if (v instanceof String s) {
            return !s.isEmpty();
        }
        return true;
    }

    /** How a value reads when substituted into text. */
    static String text(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && !d.isInfinite() ? Long.toString(d.longValue()) : d.toString();
        }
        if (v instanceof ShellVariable s) {
            return s.reference();
        }
        if (v instanceof Map || v instanceof List) {
            try {
                return JSON.writeValueAsString(v);
            } catch (Exception e) {
                return String.valueOf(v);
            }
        }
        return String.valueOf(v);
    }

    /** Loose equality: same types compare directly (strings ignoring case), others as numbers. */
    static Object looseEquals(Object a, Object b) {
        if (unknown(a) || unknown(b)) {
            return Unknown.VALUE;
        }
        if (a == null && b == null) {
            return true;
        }
        if (a instanceof String x && b instanceof String y) {
            return x.equalsIgnoreCase(y);
        }
        if (a instanceof Map || a instanceof List || b instanceof Map || b instanceof List) {
            return a == b;
        }
        if (a != null && b != null && a.getClass() == b.getClass()) {
            return a.equals(b);
        }
        double x = number(a);
        double y = number(b);
        return !Double.isNaN(x) && x == y;
    }

    static double number(Object v) {
        if (v == null) {
            return 0;
        }
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof String s) {
            String t = s.trim();
            if (t.isEmpty()) {
                return 0;
            }
            try {
                return t.startsWith("0x") ? Long.parseLong(t.substring(2), 16) : Double.parseDouble(t);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    static boolean unknown(Object v) {
        return v instanceof Unknown || v instanceof ShellVariable;
    }
}
