package dev.crucible.verifier;

import java.util.List;

/** What an agent (or trainer) gets at reset: the task, the tools, and what is protected. */
public record ResetResult(String environment, String prompt, List<String> tools, String workspace, List<String> protectedPaths,
                          String python, List<String> warnings) {}
