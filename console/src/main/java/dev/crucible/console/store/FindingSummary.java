package dev.crucible.console.store;

/**
 * One finding of a rollout as result.json lists it, with the id of its pattern: findings with the same detector, rule,
 * path and evidence shape (see {@link FindingPattern}) share one, so one hack seen in 40 runs is one pattern.
 */
public record FindingSummary(String detector, String rule, String severity, String path, String evidence, String action, String pattern) {}
