package dev.crucible.verifier;

/** The call does not fit the episode's state: not reset yet, terminated, or already graded (HTTP 409). */
public class EpisodeStateException extends RuntimeException {
    public EpisodeStateException(String message) { super(message); }
}
