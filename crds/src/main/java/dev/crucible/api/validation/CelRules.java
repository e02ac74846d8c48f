package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Evaluates the schema's {@code x-kubernetes-validations} CEL rules with the CEL reference
 * implementation, the way the API server does: {@code self} is the node the rule sits on. Transition
 * rules (those that use {@code oldSelf}) need the stored object and are left to the API server.
 */
final class CelRules {

    record Violation(String path, String message) {
    }

    private final CelCompiler compiler = CelCompilerFactory.standardCelCompilerBuilder()
            .setOptions(CelOptions.current().enableHeterogeneousNumericComparisons(true).build())
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .build();
    private final CelRuntime runtime = CelRuntimeFactory.standardCelRuntimeBuilder()
            .setOptions(CelOptions.current().enableHeterogeneousNumericComparisons(true).build())
            .build();
    private final Map<String, CelRuntime.Program> programs = new ConcurrentHashMap<>();

    List<Violation> evaluate(JsonNode schema, JsonNode value) {
        List<Violation> out = new ArrayList<>();
        walk(schema, value, "", out);
        return out;
    }

    private void walk(JsonNode schema, JsonNode value, String path, List<Violation> out) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return;
        }
        if (value.isObject()) {
            schema.path("properties").fields().forEachRemaining(e -> {
                if (value.has(e.getKey())) {
                    walk(e.getValue(), value.get(e.getKey()), FieldPaths.child(path, e.getKey()), out);
                }
            });
            JsonNode additional = schema.path("additionalProperties");
            if (additional.isObject()) {
                value.fields().forEachRemaining(e ->
                        walk(additional, e.getValue(), FieldPaths.child(path, e.getKey()), out));
            }
        } else if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                walk(schema.get("items"), value.get(i), FieldPaths.index(path, i), out);
            }
        }
        for (JsonNode rule : schema.path("x-kubernetes-validations")) {
            String expr = rule.path("rule").asText();
            if (expr.contains("oldSelf")) {
                continue;
            }
            String at = path + rule.path("fieldPath").asText("");
            at = at.startsWith(".") ? at.substring(1) : at;
            String message = rule.path("message").asText("failed rule: " + expr);
            try {
                Object result = program(expr).eval(Map.of("self", toCel(schema, value)));
                if (!Boolean.TRUE.equals(result)) {
                    out.add(new Violation(at, message));
                }
            } catch (CelEvaluationException e) {
                out.add(new Violation(at, message + " (rule could not be evaluated: " + e.getMessage() + ")"));
            }
        }
    }

    private CelRuntime.Program program(String expr) {
        return programs.computeIfAbsent(expr, e -> {
            try {
                CelAbstractSyntaxTree ast = compiler.compile(e).getAst();
                return runtime.createProgram(ast);
            } catch (CelValidationException | CelEvaluationException ex) {
                throw new IllegalStateException("CRD carries a CEL rule that does not compile: " + e, ex);
            }
        });
    }

    /** Converts JSON to CEL values, using the schema's type so a YAML {@code 1} in a number field is a double. */
    static Object toCel(JsonNode schema, JsonNode value) {
        String type = schema.path("type").asText("");
        if (value.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode childSchema = schema.path("properties").has(e.getKey())
                        ? schema.path("properties").get(e.getKey())
                        : schema.path("additionalProperties");
                map.put(e.getKey(), toCel(childSchema, e.getValue()));
            }
            return map;
        }
        if (value.isArray()) {
            List<Object> list = new ArrayList<>();
            value.forEach(v -> list.add(toCel(schema.path("items"), v)));
            return list;
        }
        if (value.isNumber()) {
            return "number".equals(type) || value.isFloatingPointNumber() ? (Object) value.asDouble() : (Object) value.asLong();
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        return value.asText();
    }
}
