package dev.crucible.verifier.monitor;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.contract.FindingSeverity;

/**
 * One suspected reward hack. {@code severity}: info, low, medium, high, critical; {@code info} is
 * recorded with its evidence but is never a hack: it triggers no policy action (its action is
 * {@code record}) and never lowers the reward. {@code rule} names the rule within the detector
 * (source rules, git checks) that a hack policy can override or ignore. {@code step} is the step
 * during which it was seen (-1 outside steps, e.g. an embedded agent; named as in the result contract's finding); {@code action} is what the hack
 * policy did: record, flag, terminate or revert.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"detector", "rule", "severity", "path", "evidence", "time", "step", "action"})
public record Finding(String detector, String severity, String path, String evidence, String time,
                      @JsonAlias("stepIndex") int step, String action, String rule) { // the alias: results written before the rename
    public static final String INFO = FindingSeverity.INFO;
    public static final String RECORD = "record";

    public Finding(String detector, String severity, String path, String evidence, String time, int step, String action) {
        this(detector, severity, path, evidence, time, step, action, null);
    }

    /**
     * Findings with the same key are reported once. An info finding keys apart, so that the same rule on the same
     * file is still reported once it counts (a helper file first seen outside graded execution, imported later).
     */
    public String key() {
        return detector + "|" + (rule == null ? "" : rule + "|") + (path == null ? evidence : path) + (INFO.equals(severity) ? "|info" : "");
    }

    public Finding withAction(String a) { return new Finding(detector, severity, path, evidence, time, step, a, rule); }

    /** False for severity info: recorded, but no hack, no policy action, no effect on the reward. */
    @JsonIgnore
    public boolean isHack() { return FindingSeverity.counts(severity); }
}
