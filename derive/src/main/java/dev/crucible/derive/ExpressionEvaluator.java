package dev.crucible.derive;

import dev.crucible.derive.ExpressionContext.OpenMap;
import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.ArrayList;
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

    static final class SyntaxError extends RuntimeException {
        SyntaxError(String message) {
            super(message);
        }
    }

    SyntaxError syntax(String problem) {
        return new SyntaxError("expression '" + text + "': " + problem);
    }

    // ---- grammar: or > and > equality > comparison > unary > postfix > primary

    private Object or() {
        Object left = and();
        while (take("||")) {
            Object right = and();
            Boolean l = ExpressionValues.truthy(left);
            if (Boolean.TRUE.equals(l)) {
                continue;
            }
            Boolean r = ExpressionValues.truthy(right);
            left = l == null ? (Boolean.TRUE.equals(r) ? right : Unknown.VALUE) : right;
        }
        return left;
    }

    private Object and() {
        Object left = equality();
        while (take("&&")) {
            Object right = equality();
            Boolean l = ExpressionValues.truthy(left);
            if (Boolean.FALSE.equals(l)) {
                continue;
            }
            Boolean r = ExpressionValues.truthy(right);
            left = l == null ? (Boolean.FALSE.equals(r) ? right : Unknown.VALUE) : right;
        }
        return left;
    }

    private Object equality() {
        Object left = comparison();
        while (true) {
            if (take("==")) {
                left = not(ExpressionValues.looseEquals(left, comparison()), false);
            } else if (take("!=")) {
                left = not(ExpressionValues.looseEquals(left, comparison()), true);
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
            if (ExpressionValues.unknown(left) || ExpressionValues.unknown(right)) {
                left = Unknown.VALUE;
                continue;
            }
            int c;
            if (left instanceof String a && right instanceof String b) {
                c = a.compareToIgnoreCase(b);
            } else {
                double a = ExpressionValues.number(left);
                double b = ExpressionValues.number(right);
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
            Boolean b = ExpressionValues.truthy(unary());
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
        if (ExpressionValues.unknown(index)) {
            return Unknown.VALUE;
        }
        if (value instanceof List<?> list) {
            double i = ExpressionValues.number(index);
            return i >= 0 && i < list.size() ? list.get((int) i) : null;
        }
        return property(value, ExpressionValues.text(index));
    }

    private Object property(Object owner, String name) {
        if (owner instanceof String root && (root.equals("secrets") || root.equals("vars"))) {
            boolean secret = root.equals("secrets");
            return new ShellVariable(name, secret, root + "." + name);
        }
        if (owner instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (String.valueOf(e.getKey()).equalsIgnoreCase(name)) {
                    return e.getValue();
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
            return ExpressionFunctions.call(name, args, this::syntax);
        }
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            case "null" -> null;
            case "nan" -> Double.NaN;
            case "infinity" -> Double.POSITIVE_INFINITY;
            default -> context.root(name);
        };
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
        double d = ExpressionValues.number(text.substring(start, pos));
        if (Double.isNaN(d)) {
            throw syntax("bad number '" + text.substring(start, pos) + "'");
        }
        return d;
    }
}
