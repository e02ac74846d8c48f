package dev.crucible.tracestore.common;

/** A refused request: the HTTP status it answers with and a message that names the field, the limit or the object. */
public final class StoreException extends RuntimeException {
    private final int status;

    public StoreException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }

    public static StoreException badRequest(String m) { return new StoreException(400, m); }
    public static StoreException notFound(String m) { return new StoreException(404, m); }
    public static StoreException conflict(String m) { return new StoreException(409, m); }
    public static StoreException tooLarge(String m) { return new StoreException(413, m); }
    public static StoreException full(String m) { return new StoreException(507, m); }
}
