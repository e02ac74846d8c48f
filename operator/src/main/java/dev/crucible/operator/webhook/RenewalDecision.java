package dev.crucible.operator.webhook;

/** What to do with the stored certificate, and why (the reason goes to the log as it is). */
public record RenewalDecision(Action action, String reason) {

    public enum Action {
        /** Valid, names match, outside the renewal window: serve it. */
        REUSE,
        /** The CA is fine; issue a new serving certificate from it (the caBundle stays the same). */
        ISSUE_SERVING,
        /** No usable CA: issue a new CA and serving certificate (the caBundle changes). */
        ISSUE_ALL
    }

    static RenewalDecision reuse(String reason) {
        return new RenewalDecision(Action.REUSE, reason);
    }

    static RenewalDecision serving(String reason) {
        return new RenewalDecision(Action.ISSUE_SERVING, reason);
    }

    static RenewalDecision all(String reason) {
        return new RenewalDecision(Action.ISSUE_ALL, reason);
    }
}
