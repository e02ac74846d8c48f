package dev.crucible.files;

/**
 * A path from an untrusted source that cannot be used: NUL, absolute, a '..' or a link that leaves
 * its root, a dangling link. The message starts with the field the path came from.
 */
public final class UnsafePathException extends IllegalArgumentException {
    private final String field;
    private final boolean dangling;

    public UnsafePathException(String field, String given, String reason) {
        this(field, given, reason, false);
    }

    UnsafePathException(String field, String given, String reason, boolean dangling) {
        super(field + ": '" + shown(given) + "' " + reason);
        this.field = field;
        this.dangling = dangling;
    }

    /** The path went through a link whose target is missing (inside the root): for a reader, simply absent. */
    public boolean dangling() {
        return dangling;
    }

    /** Where the path came from, e.g. {@code args.path} or {@code spec.patches[0].path}. */
    public String field() {
        return field;
    }

    /** NUL and other control characters are shown escaped so the message stays one printable line. */
    static String shown(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == 0) b.append("\\0");
            else if (c < 0x20) b.append(String.format("\\x%02x", (int) c));
            else b.append(c);
        }
        return b.length() > 200 ? b.substring(0, 200) + "…" : b.toString();
    }
}
