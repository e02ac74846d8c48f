package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * tox 4's TOML configuration ({@code [tool.tox]} of pyproject.toml, or tox.toml) read into the shape of tox.ini's
 * sections, so {@link ToxFlattening} handles both: {@code env_run_base} is {@code [testenv]}, {@code env.NAME} is
 * {@code [testenv:NAME]}, {@code env_list} is {@code [tox] envlist}. pallets' click, flask and itsdangerous run CI as
 * {@code uv run --locked … tox run} with tox-uv's {@code uv-venv-lock-runner} configured here. Commands (arrays of
 * arguments) become shell lines, tox's substitutions resolved per argument; a value this reader cannot take
 * ({@code {replace = "ref", …}}, a {@code base} to inherit from) is written as {@code {[…]}}, which keeps tox.
 */
final class ToxToml {
    /** Marks a value that is not plain: ToxFlattening keeps tox when a used key has it. */
    static final String UNRESOLVED = "{[unresolved]}";

    private ToxToml() {
    }

    /** The sections, or null when neither file configures tox in TOML. {@code prefix}: the step's working folder. */
    static Map<String, Map<String, String>> sections(java.util.function.Function<String, String> readFile, String prefix) {
        String toxToml = readFile.apply(prefix + "tox.toml");
        String pyproject = readFile.apply(prefix + "pyproject.toml");
        Map<String, Map<String, String>> tables;
        String root;
        if (pyproject != null && (tables = PythonTestDependencies.tables(pyproject)).keySet().stream().anyMatch(t -> t.equals("tool.tox") || t.startsWith("tool.tox."))) {
            root = "tool.tox";
        } else if (toxToml != null) {
            tables = PythonTestDependencies.tables(toxToml);
            root = "";
        } else {
            return null;
        }
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        String dot = root.isEmpty() ? "" : root + ".";
        Map<String, String> top = tables.getOrDefault(root, Map.of());
        if (top.containsKey("env_list")) out.put("tox", Map.of("envlist", String.join(",", strings(TomlValue.parse(top.get("env_list"))))));
        tables.forEach((name, keys) -> {
            String section = name.equals(dot + "env_run_base") ? "testenv"
                    : name.startsWith(dot + "env.") && !name.substring((dot + "env.").length()).contains(".") ? "testenv:" + name.substring((dot + "env.").length())
                    : null;
            if (section == null) return;
            Map<String, String> s = new LinkedHashMap<>();
            keys.forEach((k, v) -> s.put(iniKey(k), value(k, TomlValue.parse(v))));
            out.put(section, s);
        });
        return out;
    }

    /** tox.ini spells some keys another way; the TOML names are accepted in both, these are the ones the flattening reads. */
    private static String iniKey(String k) {
        return switch (k) {
            case "set_env" -> "setenv";
            default -> k;
        };
    }

    private static String value(String key, Object v) {
        if (v instanceof TomlValue.Unreadable) return UNRESOLVED;
        return switch (key) {
            case "commands" -> commands(v);
            case "deps" -> lines(v);
            case "dependency_groups", "extras" -> v instanceof List<?> l && l.stream().allMatch(x -> x instanceof String)
                    ? String.join(" ", strings(v)) : UNRESOLVED;
            case "set_env" -> v instanceof Map<?, ?> m && m.values().stream().allMatch(x -> x instanceof String)
                    ? m.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n")) : UNRESOLVED;
            case "base" -> UNRESOLVED;
            default -> v instanceof String || v instanceof Boolean || v instanceof Number ? String.valueOf(v) : UNRESOLVED;
        };
    }

    private static String lines(Object v) {
        if (!(v instanceof List<?> l) || !l.stream().allMatch(x -> x instanceof String)) return UNRESOLVED;
        return String.join("\n", strings(v));
    }

    /** {@code [["pytest", "-v", "--basetemp={env_tmp_dir}", {replace = "posargs", …}]]} → {@code pytest -v}. */
    private static String commands(Object v) {
        if (!(v instanceof List<?> all)) return UNRESOLVED;
        List<String> out = new ArrayList<>();
        for (Object c : all) {
            if (!(c instanceof List<?> args)) return UNRESOLVED;
            List<String> words = new ArrayList<>();
            boolean dropNext = false;
            for (Object a : args) {
                if (a instanceof Map<?, ?> m) {
                    if ("posargs".equals(m.get("replace"))) continue; // no positional arguments at grading
                    return UNRESOLVED;
                }
                if (!(a instanceof String s)) return UNRESOLVED;
                if (dropNext) {
                    dropNext = false;
                    continue;
                }
                // pytest's own temporary folder serves: tox's env_tmp_dir does not exist without tox
                if (s.equals("--basetemp")) {
                    dropNext = true;
                    continue;
                }
                if (s.startsWith("--basetemp=") || s.matches("\\{posargs(:[^}]*)?}")) continue;
                String w = s.replace("{tox_root}", ".").replace("{toxinidir}", ".").replace("{env_python}", "python").replace("{envpython}", "python");
                if (w.matches(".*\\{[a-z_]+}.*")) return UNRESOLVED;
                words.add(ShellScripts.quote(w));
            }
            if (!words.isEmpty()) out.add(String.join(" ", words));
        }
        return String.join("\n", out);
    }

    private static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> l) l.forEach(x -> {
            if (x instanceof String s) out.add(s);
        });
        return out;
    }
}
