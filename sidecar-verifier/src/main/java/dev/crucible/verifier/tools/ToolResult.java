package dev.crucible.verifier.tools;

/** What the agent observes after a step. */
public record ToolResult(String observation, int exitCode, boolean truncated, long elapsedMs) {}
