package dev.crucible.probe.serve;

/** A client error that names the offending field, e.g. {@code items[3].turns[0]}. */
public final class BadRequest extends RuntimeException {
    private final int status;
    private final String field;

    public BadRequest(int status, String field, String message) {
        super(message);
        this.status = status;
        this.field = field;
    }

    public int status() { return status; }
    public String field() { return field; }
}
