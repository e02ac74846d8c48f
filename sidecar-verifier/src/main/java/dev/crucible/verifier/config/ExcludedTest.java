package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A test that never counts, with the reason shown in every result: written by
 * {@code crucible verify --find-offline} for tests that fail at the task commit only because grading has
 * no network. It is left out of passToPass and of "every test counts"; a failToPass test always counts.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExcludedTest(String id, String reason) {}
