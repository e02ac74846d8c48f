package dev.crucible.console.store;

/**
 * A request the console cannot answer, with the HTTP status and the message the page shows: 400 for a bad parameter
 * (the message names it), 404 for an unknown rollout or an event past the end of a trajectory.
 */
public final class ConsoleError extends RuntimeException {
    private final int status;

    public ConsoleError(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() { return status; }

    public static ConsoleError badRequest(String message) { return new ConsoleError(400, message); }

    public static ConsoleError notFound(String message) { return new ConsoleError(404, message); }
}
