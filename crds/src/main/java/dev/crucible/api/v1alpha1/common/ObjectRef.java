package dev.crucible.api.v1alpha1.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.*;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A reference to another Crucible object in the same namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ObjectRef {
    @JsonPropertyDescription("Name of the referenced object (same namespace).")
    @Required
    @Pattern(Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String name;

    public ObjectRef() {
    }

    public ObjectRef(String name) {
        this.name = name;
    }
}
