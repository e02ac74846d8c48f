package dev.crucible.api.v1alpha1.snapshot;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** What was captured of one container. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SnapshotMember {
    public String pod;
    public String container;
    public String node;
    public String role;
    @JsonPropertyDescription("Where the images are, as the snapshot agent names them.")
    public String imageLocation;
    public Long bytes;
    public Long dumpMillis;
    public Boolean gpu;
    public String gpuModel;
    public Integer gpuCount;
    public String sha256;
    @JsonPropertyDescription("What a restore brings back: memory (the processes, through the container runtime's checkpoint image, "
            + "and the workspace) or disk (the workspace only).")
    public String mode;
    @JsonPropertyDescription("The checkpoint image a branch's container is restored from (memory snapshots of a "
            + "container, taken through the kubelet's checkpoint API); imported on the branch's node at restore.")
    public String checkpointImage;
    @JsonPropertyDescription("The member's pod ran in its own user namespace (hostUsers: false). CRIU checkpoints such a "
            + "container but cannot yet restore one into a pod's user namespace (checkpoint-restore/criu#2651): branches "
            + "of its memory are refused; its workspace restores.")
    public Boolean userNamespace;
}
