package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

/**
 * What a command that grades outside a run ({@code crucible verify}) leaves when a signal stops it mid-grading: its boxes'
 * processes and cgroups, its state folder, its boxes' staging folders and its result channels (host round 9, case 26v: a
 * SIGTERM 4 s into verifying 100,000 files left 44-61 MB in /tmp and the cgroups). A run's attempts clean up on their own
 * threads as they end; verify has one thread, the one the signal stops, so its shutdown hook does it here.
 */
public final class SignalCleanup {
    private SignalCleanup() {}

    /** A new state folder (0700) under {@code tmp}, named for this CLI: a later run removes it if this one is killed. */
    public static Path stateFolder(Path tmp) throws IOException {
        return Files.createTempDirectory(tmp, StaleStateFolders.prefix(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** Opens no more boxes, kills this CLI's and removes their cgroups (the grading thread goes on while a hook runs). */
    public static void stopBoxes() {
        dev.crucible.verifier.sandbox.Box.stopOpening();
        LeftoverBoxes.sweep(ProcessHandle.current().pid());
    }

    /** Removes this CLI's own folders under {@code tmp} (after {@link #stopBoxes}); returns those removed. */
    public static List<Path> removeOwn(Path tmp) {
        return StaleStateFolders.removeOwn(tmp, Duration.ofSeconds(5));
    }
}
