package dev.crucible.api.validation;

/**
 * One problem with one document. {@link #toString()} is the line users see, always one line:
 * {@code FILE:LINE: spec.path.to.field: message}, or {@code FILE: message} for the file as a whole.
 */
public record ValidationError(String file, int document, String kind, String name, String path, String message, int line) {

    /** Path of an error about a whole file (cannot read it, over a limit). */
    public static final String FILE = "(file)";

    public ValidationError {
        path = path == null || path.isEmpty() ? "(document)" : oneLine(path);
        message = message == null ? "" : oneLine(message);
    }

    public ValidationError(String file, int document, String kind, String name, String path, String message) {
        this(file, document, kind, name, path, message, 0);
    }

    public String resource() {
        return (kind == null ? "?" : kind) + "/" + (name == null ? "?" : name);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(oneLine(file));
        if (line > 0) {
            b.append(':').append(line);
        }
        b.append(": ");
        if (!FILE.equals(path)) {
            b.append(path).append(": ");
        }
        return b.append(message).toString();
    }

    /** Collapses line breaks (a glob's or a parser's multi-line message) so each error is one line. */
    static String oneLine(String s) {
        if (s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return s.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
