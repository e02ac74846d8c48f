package dev.crucible.api.v1alpha1.snapshot;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Where the snapshot's images and disk archives go. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.type) || self.type != 'pvc' || has(self.claimName)",
        message = "pvc storage needs claimName", fieldPath = ".claimName")
public class StorageSpec {
    @Default("node-local")
    public StorageType type;

    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String claimName;

    @JsonPropertyDescription("VolumeSnapshotClass for the workspace volume, where its CSI driver supports snapshots; else the disk is archived.")
    @Pattern(dev.crucible.api.v1alpha1.common.Names.DNS_SUBDOMAIN)
    @Size(max = 253)
    public String volumeSnapshotClassName;
}
