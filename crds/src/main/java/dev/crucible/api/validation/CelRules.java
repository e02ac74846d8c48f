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
import java.io.IOException;
import java.nio.file.Path;
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
 *
 * <p>Start-up cost: a rule is compiled (parsed and type-checked) only when a document of its kind is
 * evaluated, and with a {@link CheckedRuleCache} the checked rules of a CRD are compiled once per CRD
 * content and read back from disk afterwards; the compiler is then never built.
 */
final class CelRules {

    record Violation(String path, String message) {
    }

    private static final CelOptions OPTIONS = CelOptions.current().enableHeterogeneousNumericComparisons(true).build();

    private final CheckedRuleCache cache;
    private volatile CelCompiler compiler;
    private final CelRuntime runtime = CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(OPTIONS).build();
    private final Map<String, CelRuntime.Program> programs = new ConcurrentHashMap<>();
    /** Per CRD digest: its rules as stored (checked, serialized), turned into programs on first use. */
    private final Map<String, Map<String, byte[]>> stored = new ConcurrentHashMap<>();

    CelRules() {
        this(null);
    }

    /** @param cacheDir where checked rules are kept between runs; null keeps them in memory only */
    CelRules(Path cacheDir) {
        this.cache = cacheDir == null ? null : new CheckedRuleCache(cacheDir);
    }

    List<Violation> evaluate(CrdSchemas.Crd crd, JsonNode value) {
        Map<String, byte[]> rules = cache == null ? Map.of() : stored.computeIfAbsent(crd.digest(), d -> load(crd));
        List<Violation> out = new ArrayList<>();
        walk(crd.schema(), value, "", rules, out);
        return out;
    }

    /** The CRD's checked rules from disk, or compiled now (all of them) and stored for the next run. */
    private Map<String, byte[]> load(CrdSchemas.Crd crd) {
        Map<String, byte[]> rules = cache.read(crd.digest());
        if (rules != null) {
            return rules;
        }
        Map<String, CelAbstractSyntaxTree> checked = new LinkedHashMap<>();
        collect(crd.schema(), checked);
        cache.write(crd.digest(), checked);
        checked.forEach((expr, ast) -> programs.computeIfAbsent(expr, e -> program(ast, e)));
        return Map.of();
    }

    private void collect(JsonNode schema, Map<String, CelAbstractSyntaxTree> out) {
        if (schema.isObject()) {
            for (JsonNode rule : schema.path("x-kubernetes-validations")) {
                String expr = rule.path("rule").asText();
                if (!expr.contains("oldSelf") && !out.containsKey(expr)) {
                    try {
                        out.put(expr, compile(expr));
                    } catch (IllegalStateException e) {
                        // left out: evaluating it reports the error, as without a cache
                    }
                }
            }
            schema.forEach(child -> collect(child, out));
        } else if (schema.isArray()) {
            schema.forEach(child -> collect(child, out));
        }
    }

    private void walk(JsonNode schema, JsonNode value, String path, Map<String, byte[]> rules, List<Violation> out) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return;
        }
        if (value.isObject()) {
            schema.path("properties").fields().forEachRemaining(e -> {
                if (value.has(e.getKey())) {
                    walk(e.getValue(), value.get(e.getKey()), FieldPaths.child(path, e.getKey()), rules, out);
                }
            });
            JsonNode additional = schema.path("additionalProperties");
            if (additional.isObject()) {
                value.fields().forEachRemaining(e ->
                        walk(additional, e.getValue(), FieldPaths.child(path, e.getKey()), rules, out));
            }
        } else if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                walk(schema.get("items"), value.get(i), FieldPaths.index(path, i), rules, out);
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
                Object result = program(expr, rules).eval(Map.of("self", toCel(schema, value)));
                if (!Boolean.TRUE.equals(result)) {
                    out.add(new Violation(at, message));
                }
            } catch (CelEvaluationException e) {
                out.add(new Violation(at, message + " (rule could not be evaluated: " + e.getMessage() + ")"));
            }
        }
    }

    private CelRuntime.Program program(String expr, Map<String, byte[]> rules) {
        return programs.computeIfAbsent(expr, e -> {
            byte[] stored = rules.get(e);
            if (stored != null) {
                try {
                    return program(CheckedRuleCache.ast(stored), e);
                } catch (IOException | RuntimeException ignored) {
                    // unreadable entry: compile it instead
                }
            }
            return program(compile(e), e);
        });
    }

    private CelRuntime.Program program(CelAbstractSyntaxTree ast, String expr) {
        try {
            return runtime.createProgram(ast);
        } catch (CelEvaluationException ex) {
            throw new IllegalStateException("CRD carries a CEL rule that does not compile: " + expr, ex);
        }
    }

    private CelAbstractSyntaxTree compile(String expr) {
        try {
            return compiler().compile(expr).getAst();
        } catch (CelValidationException ex) {
            throw new IllegalStateException("CRD carries a CEL rule that does not compile: " + expr, ex);
        }
    }

    private CelCompiler compiler() {
        CelCompiler c = compiler;
        if (c == null) {
            synchronized (this) {
                if (compiler == null) {
                    compiler = CelCompilerFactory.standardCelCompilerBuilder()
                            .setOptions(OPTIONS)
                            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                            .addVar("self", SimpleType.DYN)
                            .build();
                }
                c = compiler;
            }
        }
        return c;
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
