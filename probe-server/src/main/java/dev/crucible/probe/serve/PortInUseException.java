package dev.crucible.probe.serve;

/** The address to listen on is taken; its message is the one line a user needs. */
public final class PortInUseException extends RuntimeException {
    public PortInUseException(String host, int port) {
        super("port " + port + " on " + host + " is already in use (another probe server?); pick another with --port");
    }
}
