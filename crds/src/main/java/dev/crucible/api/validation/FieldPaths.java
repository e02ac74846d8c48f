package dev.crucible.api.validation;

/** Turns JSON pointers and JSON-schema locations into the {@code spec.a.b[0].c} form users read. */
final class FieldPaths {

    private static final java.util.regex.Pattern PLAIN = java.util.regex.Pattern.compile("[A-Za-z0-9_/-]+");

    private FieldPaths() {
    }

    private static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || (c >= 0x7f && c < 0xa0) || Character.getType(c) == Character.FORMAT) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static String fromPointer(String pointer) {
        if (pointer == null || pointer.isEmpty() || pointer.equals("/")) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (String raw : pointer.substring(1).split("/", -1)) {
            String seg = raw.replace("~1", "/").replace("~0", "~");
            append(out, seg);
        }
        return out.toString();
    }

    /** networknt reports {@code $.spec.a[0]} or {@code $['odd key']}. */
    static String fromSchemaLocation(String location) {
        String s = location.startsWith("$") ? location.substring(1) : location;
        s = s.replaceAll("\\['([^']*)'\\]", ".$1");
        return s.startsWith(".") ? s.substring(1) : s;
    }

    static String child(String parent, String field) {
        StringBuilder out = new StringBuilder(parent);
        append(out, field);
        return out.toString();
    }

    /** {@code a.b[0]} → {@code a.b}; {@code a.b} → {@code a}; {@code a["x.y"]} → {@code a}; a root segment → "". */
    static String parent(String path) {
        if (path.endsWith("\"]")) {
            int open = path.lastIndexOf("[\"");
            return open < 0 ? "" : path.substring(0, open);
        }
        if (path.endsWith("]")) {
            int open = path.lastIndexOf('[');
            return open < 0 ? "" : path.substring(0, open);
        }
        int dot = path.lastIndexOf('.');
        return dot < 0 ? "" : path.substring(0, dot);
    }

    static String index(String parent, int i) {
        return parent + "[" + i + "]";
    }

    private static void append(StringBuilder out, String seg) {
        if (!seg.isEmpty() && seg.chars().allMatch(Character::isDigit)) {
            out.append('[').append(seg).append(']');
        } else if (!PLAIN.matcher(seg).matches()) {
            // Keys that are empty or hold spaces, dots or control characters are quoted, so the path stays readable.
            out.append("[\"").append(escape(seg)).append("\"]");
        } else {
            if (out.length() > 0) {
                out.append('.');
            }
            out.append(seg);
        }
    }
}
