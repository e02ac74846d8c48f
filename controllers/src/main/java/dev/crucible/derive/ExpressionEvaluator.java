package dev.crucible.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.derive.ExpressionContext.OpenMap;
import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Evaluates GitHub Actions expressions (the language inside {@code ${{ }}} and {@code if:}) with
 * three-valued logic: a result is a value, or {@link Unknown} when it depends on something only GitHub
 * knows. {@code a && b} is still false when b is known false, so {@code github.event_name == 'push' &&
 * runner.os == 'Windows'} is decided even though the event is not.
 * Semantics follow GitHub's: loose equality, case-insensitive string comparison, and/or return operands.
 */
final class ExpressionEvaluator {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String text;
    private final ExpressionContext context;
    private int pos;

    private ExpressionEvaluator(String text, ExpressionContext context) {
        this.text = text;
        this.context = context;
    }

    /** Evaluates one expression (without the surrounding {@code ${{ }}}). */
    static Object evaluate(String expression, ExpressionContext context) {
        ExpressionEvaluator e = new ExpressionEvaluator(expression, context);
        Object v = e.or();
        e.skipSpace();
        if (e.pos != e.text.length()) {
            throw e.syntax("unexpected '" + e.text.substring(e.pos) + "'");
        }
        return v;
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

    static final class SyntaxError extends RuntimeException {
        SyntaxError(String message) {
            super(message);
        }
    }

    private SyntaxError syntax(String problem) {
        return new SyntaxError("expression '" + text + "': " + problem);
    }

    // ---- grammar: or > and > equality > comparison > unary > postfix > primary

    private Object or() {
        Object left = and();
        while (take("||")) {
            Object right = and();
            Boolean l = truthy(left);
            if (Boolean.TRUE.equals(l)) {
                continue;
            }
            Boolean r = truthy(right);
            left = l == null ? (Boolean.TRUE.equals(r) ? right : Unknown.VALUE) : right;
        }
        return left;
    }

    private Object and() {
        Object left = equality();
        while (take("&&")) {
            Object right = equality();
            Boolean l = truthy(left);
            if (Boolean.FALSE.equals(l)) {
                continue;
            }
            Boolean r = truthy(right);
            left = l == null ? (Boolean.FALSE.equals(r) ? right : Unknown.VALUE) : right;
        }
        return left;
    }

    private Object equality() {
        Object left = comparison();
        while (true) {
            if (take("==")) {
                left = not(looseEquals(left, comparison()), false);
            } else if (take("!=")) {
                left = not(looseEquals(left, comparison()), true);
            } else {
                return left;
            }
        }
    }

    private static Object not(Object b, boolean negate) {
        return b instanceof Boolean v ? (Boolean) (v ^ negate) : b;
    }

    private Object comparison() {
        Object left = unary();
        while (true) {
            String op = take("<=") ? "<=" : take(">=") ? ">=" : take("<") ? "<" : take(">") ? ">" : null;
            if (op == null) {
                return left;
            }
            Object right = unary();
            if (unknown(left) || unknown(right)) {
                left = Unknown.VALUE;
                continue;
            }
            int c;
            if (left instanceof String a && right instanceof String b) {
                c = a.compareToIgnoreCase(b);
            } else {
                double a = number(left);
                double b = number(right);
                if (Double.isNaN(a) || Double.isNaN(b)) {
                    left = false;
                    continue;
                }
                c = Double.compare(a, b);
            }
            left = switch (op) {
                case "<" -> c < 0;
                case "<=" -> c <= 0;
                case ">" -> c > 0;
                default -> c >= 0;
            };
        }
    }

    private Object unary() {
        if (peekIs('!') && !text.startsWith("!=", pos)) {
            pos++;
            Boolean b = truthy(unary());
            return b == null ? Unknown.VALUE : (Object) !b;
        }
        return postfix(primary());
    }

    private Object postfix(Object value) {
        while (true) {
            skipSpace();
            if (peekIs('.')) {
                pos++;
                skipSpace();
                if (peekIs('*')) {
                    pos++;
                    value = value instanceof Map<?, ?> m ? new ArrayList<>(m.values()) : Unknown.VALUE;
                } else {
                    value = property(value, identifier());
                }
            } else if (peekIs('[')) {
                pos++;
                Object index = or();
                expect(']');
                value = index(value, index);
            } else {
                return value;
            }
        }
    }

    private Object index(Object value, Object index) {
        if (unknown(index)) {
            return Unknown.VALUE;
        }
        if (value instanceof List<?> list) {
            double i = number(index);
            return i >= 0 && i < list.size() ? normalize(list.get((int) i)) : null;
        }
        return property(value, text(index));
    }

    private Object property(Object owner, String name) {
        if (owner instanceof String root && (root.equals("secrets") || root.equals("vars"))) {
            boolean secret = root.equals("secrets");
            return new ShellVariable(name, secret, root + "." + name);
        }
        if (owner instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (String.valueOf(e.getKey()).equalsIgnoreCase(name)) {
                    return normalize(e.getValue());
                }
            }
            return owner instanceof OpenMap ? Unknown.VALUE : null;
        }
        if (owner == null) {
            return null;
        }
        return Unknown.VALUE;
    }

    private Object primary() {
        skipSpace();
        if (pos >= text.length()) {
            throw syntax("ends too early");
        }
        char c = text.charAt(pos);
        if (c == '(') {
            pos++;
            Object v = or();
            expect(')');
            return v;
        }
        if (c == '\'') {
            return string();
        }
        if (Character.isDigit(c) || c == '-' || c == '+' || c == '.') {
            return numberLiteral();
        }
        String name = identifier();
        skipSpace();
        if (peekIs('(')) {
            pos++;
            List<Object> args = new ArrayList<>();
            skipSpace();
            if (!peekIs(')')) {
                do {
                    args.add(or());
                } while (take(","));
            }
            expect(')');
            return call(name, args);
        }
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            case "null" -> null;
            case "nan" -> Double.NaN;
            case "infinity" -> Double.POSITIVE_INFINITY;
            default -> context.root(name) instanceof Map<?, ?> m ? m : context.root(name);
        };
    }

    private Object call(String name, List<Object> args) {
        String fn = name.toLowerCase(Locale.ROOT);
        switch (fn) {
            case "success", "always" -> {
                return true;
            }
            case "failure", "cancelled" -> {
                return false;
            }
            case "hashfiles" -> {
                return Unknown.VALUE;
            }
            default -> {
            }
        }
        for (Object a : args) {
            if (unknown(a)) {
                return Unknown.VALUE;
            }
        }
        return switch (fn) {
            case "contains" -> {
                arity(name, args, 2);
                if (args.get(0) instanceof List<?> list) {
                    yield list.stream().anyMatch(x -> Boolean.TRUE.equals(looseEquals(normalize(x), args.get(1))));
                }
                yield text(args.get(0)).toLowerCase(Locale.ROOT).contains(text(args.get(1)).toLowerCase(Locale.ROOT));
            }
            case "startswith" -> {
                arity(name, args, 2);
                yield text(args.get(0)).toLowerCase(Locale.ROOT).startsWith(text(args.get(1)).toLowerCase(Locale.ROOT));
            }
            case "endswith" -> {
                arity(name, args, 2);
                yield text(args.get(0)).toLowerCase(Locale.ROOT).endsWith(text(args.get(1)).toLowerCase(Locale.ROOT));
            }
            case "format" -> format(args);
            case "join" -> {
                String sep = args.size() > 1 ? text(args.get(1)) : ",";
                yield args.get(0) instanceof List<?> list
                        ? String.join(sep, list.stream().map(x -> text(normalize(x))).toList())
                        : text(args.get(0));
            }
            case "tojson" -> text(args.get(0) instanceof String s ? quoteJson(s) : args.get(0));
            case "fromjson" -> fromJson(text(args.get(0)));
            default -> throw syntax("unknown function " + name + "()");
        };
    }

    private void arity(String name, List<Object> args, int n) {
        if (args.size() != n) {
            throw syntax(name + "() takes " + n + " arguments");
        }
    }

    private static Object format(List<Object> args) {
        String f = text(args.get(0));
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < f.length(); i++) {
            char c = f.charAt(i);
            if (c == '{' && i + 1 < f.length() && f.charAt(i + 1) == '{') {
                out.append('{');
                i++;
            } else if (c == '}' && i + 1 < f.length() && f.charAt(i + 1) == '}') {
                out.append('}');
                i++;
            } else if (c == '{') {
                int end = f.indexOf('}', i);
                int n = Integer.parseInt(f.substring(i + 1, end).trim());
                out.append(n + 1 < args.size() ? text(args.get(n + 1)) : "");
                i = end;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String quoteJson(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            return s;
        }
    }

    private Object fromJson(String json) {
        try {
            return fromJsonNode(JSON.readTree(json));
        } catch (Exception e) {
            throw syntax("fromJSON of text that is not JSON: " + json);
        }
    }

    private static Object fromJsonNode(JsonNode n) {
        if (n.isObject()) {
            Map<String, Object> m = new LinkedHashMap<>();
            n.fields().forEachRemaining(e -> m.put(e.getKey(), fromJsonNode(e.getValue())));
            return m;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(x -> l.add(fromJsonNode(x)));
            return l;
        }
        if (n.isNumber()) {
            return n.asDouble();
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        return n.isNull() ? null : n.asText();
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

    private static double number(Object v) {
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

    private static boolean unknown(Object v) {
        return v instanceof Unknown || v instanceof ShellVariable;
    }

    /** Matrix and env values arrive as written (strings); lists and maps stay as they are. */
    private static Object normalize(Object v) {
        return v;
    }

    // ---- lexing helpers

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private boolean peekIs(char c) {
        skipSpace();
        return pos < text.length() && text.charAt(pos) == c;
    }

    private boolean take(String token) {
        skipSpace();
        if (text.startsWith(token, pos)) {
            pos += token.length();
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peekIs(c)) {
            throw syntax("expected '" + c + "' at position " + pos);
        }
        pos++;
    }

    private String identifier() {
        skipSpace();
        int start = pos;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isLetterOrDigit(c) || c == '_' || (c == '-' && pos > start)) {
                pos++;
            } else {
                break;
            }
        }
        if (start == pos) {
            throw syntax(pos < text.length() ? "unexpected '" + text.charAt(pos) + "'" : "ends too early");
        }
        return text.substring(start, pos);
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        pos++;
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '\'') {
                if (pos < text.length() && text.charAt(pos) == '\'') {
                    out.append('\'');
                    pos++;
                } else {
                    return out.toString();
                }
            } else {
                out.append(c);
            }
        }
        throw syntax("unterminated string");
    }

    private Object numberLiteral() {
        int start = pos;
        while (pos < text.length() && "0123456789abcdefxABCDEFX.+-eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        double d = number(text.substring(start, pos));
        if (Double.isNaN(d)) {
            throw syntax("bad number '" + text.substring(start, pos) + "'");
        }
        return d;
    }
}
