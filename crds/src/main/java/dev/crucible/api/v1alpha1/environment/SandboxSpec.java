package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Isolation of the untrusted agent beyond the always-on safety defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SandboxSpec {
    @JsonPropertyDescription("RuntimeClass for rollout pods, e.g. gvisor.")
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String runtimeClassName;

    public NetworkSpec network;
}
