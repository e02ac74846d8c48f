package dev.crucible.cli.imports;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TOML reader for task manifests (Harbor's task.toml): tables, dotted keys, arrays of tables, strings of
 * the four kinds, integers, floats, booleans, arrays and inline tables. Dates are kept as their text. What it
 * cannot read is an error naming the file, the line and the reason: the importer never guesses at a value.
 * (The CLI has no TOML library; this subset is the one task files use.)
 */
final class TomlReader {
    /** A TOML error at {@code line} (1-based) of {@code file}. */
    static final class TomlException extends Exception {
        TomlException(String file, int line, String reason) {
            super(file + ":" + line + ": " + reason);
        }
    }

    private final String file;
    private final String text;
    private int pos;

    private TomlReader(String file, String text) {
        this.file = file;
        this.text = text;
    }

    static Map<String, Object> parse(String file, String text) throws TomlException {
        return new TomlReader(file, text).document();
    }

    private Map<String, Object> document() throws TomlException {
        Map<String, Object> root = new LinkedHashMap<>();
        Map<String, Object> table = root;
        while (true) {
            skipBlankAndComments();
            if (pos >= text.length()) return root;
            if (peek() == '[') {
                boolean arrayOfTables = text.startsWith("[[", pos);
                pos += arrayOfTables ? 2 : 1;
                List<String> key = key();
                expect(arrayOfTables ? "]]" : "]");
                endOfLine();
                table = arrayOfTables ? appendTable(root, key) : openTable(root, key);
            } else {
                List<String> key = key();
                skipSpaces();
                expect("=");
                skipSpaces();
                Object value = value();
                put(table, key, value);
                endOfLine();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> openTable(Map<String, Object> root, List<String> key) throws TomlException {
        Map<String, Object> t = root;
        for (String k : key) {
            Object v = t.computeIfAbsent(k, x -> new LinkedHashMap<String, Object>());
            if (v instanceof List<?> l && !l.isEmpty() && l.get(l.size() - 1) instanceof Map<?, ?> last) {
                v = last;
            }
            if (!(v instanceof Map<?, ?>)) throw error("'" + String.join(".", key) + "' is already a value, not a table");
            t = (Map<String, Object>) v;
        }
        return t;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> appendTable(Map<String, Object> root, List<String> key) throws TomlException {
        Map<String, Object> parent = openTable(root, key.subList(0, key.size() - 1));
        Object v = parent.computeIfAbsent(key.get(key.size() - 1), x -> new ArrayList<Object>());
        if (!(v instanceof List<?>)) throw error("'" + String.join(".", key) + "' is already defined, not an array of tables");
        Map<String, Object> t = new LinkedHashMap<>();
        ((List<Object>) v).add(t);
        return t;
    }

    @SuppressWarnings("unchecked")
    private void put(Map<String, Object> table, List<String> key, Object value) throws TomlException {
        Map<String, Object> t = table;
        for (String k : key.subList(0, key.size() - 1)) {
            Object v = t.computeIfAbsent(k, x -> new LinkedHashMap<String, Object>());
            if (!(v instanceof Map<?, ?>)) throw error("'" + k + "' is already a value, not a table");
            t = (Map<String, Object>) v;
        }
        String last = key.get(key.size() - 1);
        if (t.containsKey(last)) throw error("duplicate key '" + String.join(".", key) + "'");
        t.put(last, value);
    }

    private List<String> key() throws TomlException {
        List<String> parts = new ArrayList<>();
        while (true) {
            skipSpaces();
            char c = peek();
            if (c == '"' || c == '\'') {
                parts.add(string());
            } else {
                int start = pos;
                while (pos < text.length() && (Character.isLetterOrDigit(peek()) || peek() == '_' || peek() == '-')) pos++;
                if (start == pos) throw error("expected a key");
                parts.add(text.substring(start, pos));
            }
            skipSpaces();
            if (pos < text.length() && peek() == '.') {
                pos++;
            } else {
                return parts;
            }
        }
    }

    private Object value() throws TomlException {
        if (pos >= text.length()) throw error("expected a value");
        char c = peek();
        if (c == '"' || c == '\'') return string();
        if (c == '[') return array();
        if (c == '{') return inlineTable();
        if (text.startsWith("true", pos)) { pos += 4; return Boolean.TRUE; }
        if (text.startsWith("false", pos)) { pos += 5; return Boolean.FALSE; }
        int start = pos;
        while (pos < text.length() && "+-_.:0123456789eExXoObBabcdfTZinf".indexOf(peek()) >= 0) pos++;
        String raw = text.substring(start, pos).replace("_", "");
        if (raw.isEmpty()) throw error("expected a value (string, number, boolean, array or table)");
        try {
            if (raw.matches("[+-]?\\d+")) return Long.parseLong(raw);
            if (raw.matches("[+-]?(\\d+(\\.\\d+)?([eE][+-]?\\d+)?|inf|nan)")) return Double.parseDouble(raw.replace("inf", "Infinity"));
        } catch (NumberFormatException e) {
            throw error("number out of range: " + raw);
        }
        if (raw.matches("\\d{4}-\\d{2}-\\d{2}.*|\\d{2}:\\d{2}.*|0[xob][0-9a-fA-F]+")) return raw;
        throw error("not a TOML value: " + raw);
    }

    private List<Object> array() throws TomlException {
        pos++;
        List<Object> items = new ArrayList<>();
        while (true) {
            skipBlankAndComments();
            if (pos >= text.length()) throw error("unterminated array");
            if (peek() == ']') { pos++; return items; }
            items.add(value());
            skipBlankAndComments();
            if (pos < text.length() && peek() == ',') {
                pos++;
            } else if (pos >= text.length() || peek() != ']') {
                throw error("expected ',' or ']' in an array");
            }
        }
    }

    private Map<String, Object> inlineTable() throws TomlException {
        pos++;
        Map<String, Object> t = new LinkedHashMap<>();
        skipSpaces();
        if (pos < text.length() && peek() == '}') { pos++; return t; }
        while (true) {
            List<String> key = key();
            skipSpaces();
            expect("=");
            skipSpaces();
            put(t, key, value());
            skipSpaces();
            if (pos < text.length() && peek() == ',') { pos++; continue; }
            expect("}");
            return t;
        }
    }

    private String string() throws TomlException {
        char q = peek();
        boolean multi = text.startsWith(String.valueOf(q).repeat(3), pos);
        pos += multi ? 3 : 1;
        if (multi && pos < text.length() && peek() == '\n') pos++;  // a newline right after the opening quotes is dropped
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) throw error("unterminated string");
            char c = text.charAt(pos);
            if (multi ? text.startsWith(String.valueOf(q).repeat(3), pos) : c == q) {
                pos += multi ? 3 : 1;
                return sb.toString();
            }
            if (c == '\n' && !multi) throw error("newline in a single-line string");
            if (c == '\\' && q == '"') {
                pos++;
                if (pos >= text.length()) throw error("unterminated string");
                char e = text.charAt(pos++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case '"' -> sb.append('"');
                    case '\\' -> sb.append('\\');
                    case 'u', 'U' -> {
                        int n = e == 'u' ? 4 : 8;
                        if (pos + n > text.length()) throw error("short \\" + e + " escape");
                        try {
                            sb.appendCodePoint(Integer.parseInt(text.substring(pos, pos + n), 16));
                        } catch (IllegalArgumentException ex) {
                            throw error("bad \\" + e + " escape");
                        }
                        pos += n;
                    }
                    case '\n', ' ', '\t' -> {
                        if (!multi) throw error("bad escape \\" + e);
                        while (pos < text.length() && Character.isWhitespace(peek())) pos++;  // line-ending backslash
                    }
                    default -> throw error("bad escape \\" + e);
                }
                continue;
            }
            sb.append(c);
            pos++;
        }
    }

    private void skipSpaces() {
        while (pos < text.length() && (peek() == ' ' || peek() == '\t')) pos++;
    }

    private void skipBlankAndComments() {
        while (pos < text.length()) {
            char c = peek();
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                pos++;
            } else if (c == '#') {
                while (pos < text.length() && peek() != '\n') pos++;
            } else {
                return;
            }
        }
    }

    private void endOfLine() throws TomlException {
        skipSpaces();
        if (pos < text.length() && peek() == '#') while (pos < text.length() && peek() != '\n') pos++;
        if (pos < text.length() && peek() == '\r') pos++;
        if (pos < text.length() && peek() != '\n') throw error("unexpected text after a value: '" + rest() + "'");
    }

    private void expect(String s) throws TomlException {
        if (!text.startsWith(s, pos)) throw error("expected '" + s + "'" + (pos < text.length() ? " at '" + rest() + "'" : ""));
        pos += s.length();
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private String rest() {
        int end = text.indexOf('\n', pos);
        String r = text.substring(pos, end < 0 ? text.length() : end);
        return r.length() > 40 ? r.substring(0, 40) + "…" : r;
    }

    private TomlException error(String reason) {
        int line = 1;
        for (int i = 0; i < Math.min(pos, text.length()); i++) if (text.charAt(i) == '\n') line++;
        return new TomlException(file, line, reason);
    }
}
