package dev.crucible.snapshot.engine;

/**
 * @param workspaceOut empty directory to extract the workspace archive into (inside an allowed
 *                     workspace root); null to skip the disk
 * @param verify       check every file's sha256 before handing the images to CRIU
 */
public record RestoreRequest(String snapshotId, String workspaceOut, Boolean verify, boolean tcpEstablished) {
    public static RestoreRequest of(String id) {
        return new RestoreRequest(id, null, true, false);
    }
}
