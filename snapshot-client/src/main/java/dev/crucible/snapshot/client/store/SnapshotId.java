package dev.crucible.snapshot.client.store;

import java.util.regex.Pattern;

/**
 * A snapshot id as accepted from callers. Deliberately strict: it becomes a directory name
 * inside the image store, so it can never contain a separator, a dot segment or anything a
 * shell or a file system treats specially.
 */
public record SnapshotId(String value) {

    /** Lower-case letters, digits, '-' and '_', starting and ending alphanumeric, at most 128. */
    public static final Pattern PATTERN = Pattern.compile("[a-z0-9](?:[a-z0-9_-]{0,126}[a-z0-9])?");

    public SnapshotId {
        if (value == null || !PATTERN.matcher(value).matches()) {
            throw new InvalidSnapshotIdException(value);
        }
    }

    public static SnapshotId of(String value) {
        return new SnapshotId(value);
    }

    @Override
    public String toString() {
        return value;
    }

    /** Thrown for an id that does not match {@link #PATTERN}; the message names the rule. */
    public static final class InvalidSnapshotIdException extends IllegalArgumentException {
        public InvalidSnapshotIdException(String value) {
            super("snapshotId " + quote(value) + " is invalid: it must match " + PATTERN.pattern()
                    + " (lower-case letters, digits, '-' and '_', at most 128 characters)");
        }

        private static String quote(String v) {
            if (v == null) {
                return "<missing>";
            }
            String shown = v.length() > 80 ? v.substring(0, 80) + "…" : v;
            return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
        }
    }
}
