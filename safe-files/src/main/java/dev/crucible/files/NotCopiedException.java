package dev.crucible.files;

import java.io.IOException;

/**
 * One entry a copy refused (not a regular file, replaced while copied, a link that leads out of the
 * tree): the copy goes on without it and lists it with {@link #reason} in {@link CopyStats#skipped}.
 * Other {@link IOException}s (a full disk) end the copy.
 */
public final class NotCopiedException extends IOException {
    private final String reason;

    public NotCopiedException(String path, String reason) {
        super(path + ": " + reason);
        this.reason = reason;
    }

    public String reason() { return reason; }
}
