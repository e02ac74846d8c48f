package dev.crucible.snapshot.client;

/** An agent answered with an error status (or could not be reached: status 0). */
public final class AgentCallException extends RuntimeException {

    private final int status;

    public AgentCallException(String agent, String call, int status, String message) {
        super(agent + " " + call + " -> " + (status == 0 ? "unreachable" : "HTTP " + status) + ": " + message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
