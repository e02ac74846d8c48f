package dev.crucible.derive;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An env block written as one expression, {@code env: ${{ matrix.env }}} (scrapy's tests-ubuntu.yml, whose matrix
 * cells carry {@code env: {TOXENV: py}}): {@link YamlDocument} keeps it under {@link YamlDocument#WHOLE_ENV} until
 * the matrix cell is chosen; here it becomes the mapping the expression gives.
 */
final class WholeEnv {
    private WholeEnv() {
    }

    /** {@code raw} itself when it is an ordinary block; else the expression's mapping, values as strings (empty, said in a note, when none). */
    static Map<String, String> resolve(Map<String, String> raw, ExpressionContext context, List<String> notes, String level) {
        String expr = raw.get(YamlDocument.WHOLE_ENV);
        if (expr == null) return raw;
        Object v = ExpressionEvaluator.evaluate(expr.substring(3, expr.length() - 2).strip(), context);
        Map<String, String> out = new LinkedHashMap<>();
        if (v instanceof Map<?, ?> m) {
            m.forEach((k, x) -> out.put(String.valueOf(k), x == null ? "" : String.valueOf(x)));
        } else {
            notes.add(level + "env is " + expr + ", which gives no mapping here: left empty");
        }
        return out;
    }
}
