package dev.crucible.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * GitHub's expression functions. Status functions assume every earlier step passed (the local run
 * stops at the first failure anyway); hashFiles is unknown, because it only feeds cache keys.
 */
final class ExpressionFunctions {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ExpressionFunctions() {
    }

    /** String functions compare ignoring case, as GitHub's do. */
    private static String lower(Object v) {
        return ExpressionValues.text(v).toLowerCase(Locale.ROOT);
    }

    static Object call(String name, List<Object> args, Function<String, RuntimeException> syntax) {
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
            if (ExpressionValues.unknown(a)) {
                return Unknown.VALUE;
            }
        }
        return switch (fn) {
            case "contains" -> {
                arity(name, args, 2, syntax);
                if (args.get(0) instanceof List<?> list) {
                    yield list.stream().anyMatch(x -> Boolean.TRUE.equals(ExpressionValues.looseEquals(x, args.get(1))));
                }
                yield lower(args.get(0)).contains(lower(args.get(1)));
            }
            case "startswith" -> {
                arity(name, args, 2, syntax);
                yield lower(args.get(0)).startsWith(lower(args.get(1)));
            }
            case "endswith" -> {
                arity(name, args, 2, syntax);
                yield lower(args.get(0)).endsWith(lower(args.get(1)));
            }
            case "format" -> format(args);
            case "join" -> {
                String sep = args.size() > 1 ? ExpressionValues.text(args.get(1)) : ",";
                yield args.get(0) instanceof List<?> list
                        ? String.join(sep, list.stream().map(x -> ExpressionValues.text(x)).toList())
                        : ExpressionValues.text(args.get(0));
            }
            case "tojson" -> ExpressionValues.text(args.get(0) instanceof String s ? quoteJson(s) : args.get(0));
            case "fromjson" -> fromJson(ExpressionValues.text(args.get(0)), syntax);
            default -> throw syntax.apply("unknown function " + name + "()");
        };
    }

    private static void arity(String name, List<Object> args, int n, Function<String, RuntimeException> syntax) {
        if (args.size() != n) {
            throw syntax.apply(name + "() takes " + n + " arguments");
        }
    }

    private static Object format(List<Object> args) {
        String f = ExpressionValues.text(args.get(0));
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
                out.append(n + 1 < args.size() ? ExpressionValues.text(args.get(n + 1)) : "");
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

    private static Object fromJson(String json, Function<String, RuntimeException> syntax) {
        try {
            return fromJsonNode(JSON.readTree(json));
        } catch (Exception e) {
            throw syntax.apply("fromJSON of text that is not JSON: " + json);
        }
    }

    /** JSON as expression values (numbers as doubles, as fromJSON gives them). */
    static Object fromJsonNode(JsonNode n) {
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
}
