package dev.crucible.verifier.monitor;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One suspected reward hack. {@code severity}: low, medium, high, critical; {@code stepIndex} is the
 * step during which it was seen (-1 outside steps, e.g. an embedded agent); {@code action} is what
 * the hack policy did: flag, terminate or revert.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Finding(String detector, String severity, String path, String evidence, String time, int stepIndex, String action) {
    /** Findings with the same key are reported once. */
    public String key() { return detector + "|" + (path == null ? evidence : path); }

    public Finding withAction(String a) { return new Finding(detector, severity, path, evidence, time, stepIndex, a); }
}
