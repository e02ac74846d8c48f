package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One TOML value as {@link PythonTestDependencies#tables} hands it over (text, arrays over several lines joined):
 * strings (basic and literal), arrays, inline tables, booleans and numbers, comments skipped. Enough for tox's
 * configuration; anything else (multi-line strings, dates) is {@link Unreadable}. No TOML library (see PoeTasks).
 */
final class TomlValue {
    /** A value this reader does not take. */
    record Unreadable(String text) {
    }

    private final String s;
    private int i;

    private TomlValue(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        TomlValue p = new TomlValue(text);
        try {
            Object v = p.value();
            p.space();
            return p.i >= p.s.length() ? v : new Unreadable(text);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return new Unreadable(text);
        }
    }

    private void space() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                return;
            }
        }
    }

    private Object value() {
        space();
        char c = s.charAt(i);
        if (c == '[') return array();
        if (c == '{') return table();
        if (c == '"' || c == '\'') return string();
        int start = i;
        while (i < s.length() && "],}#".indexOf(s.charAt(i)) < 0 && !Character.isWhitespace(s.charAt(i))) i++;
        String bare = s.substring(start, i);
        if (bare.equals("true") || bare.equals("false")) return Boolean.valueOf(bare);
        if (bare.matches("[+-]?\\d[\\d_]*(\\.\\d+)?")) return bare.replace("_", "");
        throw new IllegalStateException(bare);
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        i++;
        while (true) {
            space();
            if (s.charAt(i) == ']') {
                i++;
                return out;
            }
            out.add(value());
            space();
            if (s.charAt(i) == ',') i++;
            else if (s.charAt(i) != ']') throw new IllegalStateException("array");
        }
    }

    private Map<String, Object> table() {
        Map<String, Object> out = new LinkedHashMap<>();
        i++;
        while (true) {
            space();
            if (s.charAt(i) == '}') {
                i++;
                return out;
            }
            String key;
            if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
                key = string();
            } else {
                int start = i;
                while (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '-') i++;
                key = s.substring(start, i);
            }
            space();
            if (key.isEmpty() || s.charAt(i) != '=') throw new IllegalStateException("key");
            i++;
            out.put(key, value());
            space();
            if (s.charAt(i) == ',') i++;
            else if (s.charAt(i) != '}') throw new IllegalStateException("table");
        }
    }

    private String string() {
        char q = s.charAt(i);
        if (s.startsWith(String.valueOf(q).repeat(3), i)) throw new IllegalStateException("multi-line string");
        StringBuilder b = new StringBuilder();
        i++;
        while (s.charAt(i) != q) {
            char c = s.charAt(i++);
            if (c == '\\' && q == '"') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case '"', '\\' -> b.append(e);
                    default -> throw new IllegalStateException("escape");
                }
            } else {
                b.append(c);
            }
        }
        i++;
        return b.toString();
    }
}
