package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** Tests kept out of the workspace: a directory copied in, and/or a unified diff applied, only at grading. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HiddenTests(String path, String patch) {}
