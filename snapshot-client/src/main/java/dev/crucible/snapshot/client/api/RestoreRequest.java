package dev.crucible.snapshot.client.api;

import dev.crucible.snapshot.client.api.WorkspacePatch;
import java.util.List;

/**
 * @param workspaceOut empty directory to extract the workspace archive into (inside an allowed
 *                     workspace root); null to skip the disk
 * @param verify       check every file's sha256 before handing the images to CRIU
 * @param patches      changes applied to the extracted workspace before the processes resume (a
 *                     branch that differs from its snapshot); needs workspaceOut
 */
public record RestoreRequest(String snapshotId, String workspaceOut, Boolean verify, boolean tcpEstablished,
                             List<WorkspacePatch> patches) {

    public RestoreRequest {
        patches = patches == null ? List.of() : List.copyOf(patches);
    }

    public RestoreRequest(String snapshotId, String workspaceOut, Boolean verify, boolean tcpEstablished) {
        this(snapshotId, workspaceOut, verify, tcpEstablished, List.of());
    }

    public static RestoreRequest of(String id) {
        return new RestoreRequest(id, null, true, false);
    }
}
