package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the conventional Python test job installs besides the project and pytest: the test dependencies the project
 * declares in pyproject.toml, which its pytest configuration may need (browser-use's {@code addopts} holds
 * {@code --dist=loadscope}, an option of pytest-xdist from {@code [tool.uv] dev-dependencies}: without it pytest
 * stopped with a usage error, exit 4). Read, in this order: a PEP 735 dependency group named test, tests, testing or
 * dev ({@code pip install --group}); uv's {@code [tool.uv] dev-dependencies}; the extra named test, tests, testing or
 * dev of {@code [project.optional-dependencies]}. A line reader for these forms only (no TOML library; see PoeTasks).
 */
final class PythonTestDependencies {
    private static final List<String> NAMES = List.of("test", "tests", "testing", "dev");
    private static final Pattern TABLE = Pattern.compile("^\\s*\\[([^\\[\\]]+)]\\s*(#.*)?$");
    private static final Pattern KEY = Pattern.compile("^\\s*([A-Za-z0-9_.\"'-]+)\\s*=\\s*(.*)$");
    private static final Pattern STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'");

    private PythonTestDependencies() {
    }

    /** The setup line: {@code pip install -e .[EXTRA] pytest}, then a group or uv's dev list when declared. */
    static String installLines(Function<String, String> readFile) {
        String toml = readFile.apply("pyproject.toml");
        Map<String, Map<String, String>> tables = toml == null ? Map.of() : tables(toml);
        String extra = first(tables.get("project.optional-dependencies"));
        List<String> lines = new ArrayList<>();
        lines.add("pip install -e " + (extra == null ? "." : "'.[" + extra + "]'") + " pytest");
        String group = first(tables.get("dependency-groups"));
        if (group != null) lines.add("pip install --group " + group);
        Map<String, String> uv = tables.getOrDefault("tool.uv", Map.of());
        List<String> dev = uv.containsKey("dev-dependencies") ? strings(uv.get("dev-dependencies")) : List.of();
        if (!dev.isEmpty()) lines.add("pip install " + String.join(" ", dev.stream().map(PythonTestDependencies::quote).toList()));
        return String.join("\n", lines);
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static String first(Map<String, String> table) {
        if (table == null) return null;
        for (String n : NAMES) if (table.containsKey(n) && !strings(table.get(n)).isEmpty()) return n;
        return null;
    }

    /** table name → key → the value's text (an array over several lines joined). */
    static Map<String, Map<String, String>> tables(String toml) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        String table = "";
        String key = null;
        StringBuilder value = null;
        int depth = 0;
        for (String line : toml.split("\n")) {
            if (value != null) {
                value.append('\n').append(line);
                depth += depth(line);
                if (depth <= 0) {
                    out.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, value.toString());
                    value = null;
                }
                continue;
            }
            Matcher t = TABLE.matcher(line);
            if (t.matches()) {
                table = t.group(1).strip().replace("\"", "").replace("'", "");
                continue;
            }
            Matcher k = KEY.matcher(line);
            if (!k.matches()) continue;
            key = k.group(1).replace("\"", "").replace("'", "");
            depth = depth(k.group(2));
            if (depth > 0) value = new StringBuilder(k.group(2));
            else out.computeIfAbsent(table, x -> new LinkedHashMap<>()).put(key, k.group(2));
        }
        return out;
    }

    /** Open minus closed brackets outside strings and comments. */
    private static int depth(String s) {
        int d = 0;
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote == '"') i++;
                else if (c == quote) quote = 0;
            } else if (c == '"' || c == '\'') quote = c;
            else if (c == '#') break;
            else if (c == '[') d++;
            else if (c == ']') d--;
        }
        return d;
    }

    /** The quoted strings of an array value, outside comments ({@code {include-group = ...}} tables are skipped). */
    static List<String> strings(String value) {
        List<String> out = new ArrayList<>();
        for (String line : value.split("\n")) {
            String code = line;
            int hash = commentStart(line);
            if (hash >= 0) code = line.substring(0, hash);
            if (code.contains("{")) continue;
            Matcher m = STRING.matcher(code);
            while (m.find()) out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }

    private static int commentStart(String s) {
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
            } else if (c == '"' || c == '\'') quote = c;
            else if (c == '#') return i;
        }
        return -1;
    }
}
