package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Tools the environment API offers the agent. */
public enum Tool {
    @JsonProperty("bash") BASH,
    @JsonProperty("read_file") READ_FILE,
    @JsonProperty("write_file") WRITE_FILE,
    @JsonProperty("edit") EDIT,
    @JsonProperty("list") LIST
}
