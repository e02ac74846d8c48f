package dev.crucible.derive;

import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the {@code ${{ ... }}} parts of workflow text (run scripts, env values, with: inputs).
 * Known values are written in; secrets and runtime-only values become {@code ${NAME}} shell references;
 * values only GitHub could know become empty text, as on GitHub for a missing property, and are listed
 * so the report can say which ones were lost.
 */
final class ExpressionTemplates {
    /**
     * @param text       the text with expressions replaced
     * @param variables  shell variables written in (secrets among them)
     * @param unresolved expressions whose value only GitHub knows, as written
     */
    record Result(String text, List<ShellVariable> variables, List<String> unresolved) {
        boolean usesSecrets() {
            return variables.stream().anyMatch(ShellVariable::secret);
        }
    }

    private ExpressionTemplates() {
    }

    static boolean hasExpression(String text) {
        return text != null && text.contains("${{");
    }

    static Result substitute(String text, ExpressionContext context) {
        List<ShellVariable> variables = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        if (text == null) {
            return new Result(null, variables, unresolved);
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (true) {
            int start = text.indexOf("${{", i);
            if (start < 0) {
                out.append(text, i, text.length());
                break;
            }
            int end = closing(text, start + 3);
            if (end < 0) {
                throw new ExpressionEvaluator.SyntaxError("'${{' without a closing '}}' in: " + text.strip());
            }
            out.append(text, i, start);
            String expression = text.substring(start + 3, end).trim();
            Object value = ExpressionEvaluator.evaluate(expression, context);
            if (value instanceof Unknown) {
                unresolved.add("${{ " + expression + " }}");
            } else {
                if (value instanceof ShellVariable v && !variables.contains(v)) {
                    variables.add(v);
                }
                out.append(ExpressionValues.text(value));
            }
            i = end + 2;
        }
        return new Result(out.toString(), variables, unresolved);
    }

    /** Evaluates an {@code if:} condition, which may be written with or without {@code ${{ }}}. */
    static Object condition(String condition, ExpressionContext context) {
        String c = condition.strip();
        if (c.startsWith("${{") && c.endsWith("}}") && closing(c, 3) == c.length() - 2) {
            c = c.substring(3, c.length() - 2);
        } else if (c.contains("${{")) {
            // Text with embedded expressions is a non-empty string after substitution: always true.
            Result r = substitute(c, context);
            return r.unresolved().isEmpty() ? r.text() : Unknown.VALUE;
        }
        return ExpressionEvaluator.evaluate(c, context);
    }

    /** Index of the '}}' ending an expression that starts at {@code from}, skipping quoted strings. */
    static int closing(String text, int from) {
        boolean quoted = false;
        for (int i = from; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '}' && text.charAt(i + 1) == '}') {
                return i;
            }
        }
        return -1;
    }
}
