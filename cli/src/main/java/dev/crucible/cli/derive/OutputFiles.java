package dev.crucible.cli.derive;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes several files so that none is ever half-written: each goes to a temporary file beside its
 * target first, and only when all are written are they moved into place (atomically where the file
 * system allows). A failure before that leaves every target as it was.
 */
final class OutputFiles {
    private record Pending(Path target, Path temp) {
    }

    private final List<Pending> pending = new ArrayList<>();

    void add(Path target, String content) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path temp = Files.createTempFile(dir, "." + absolute.getFileName(), ".tmp");
        try {
            Files.writeString(temp, content);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            discard();
            throw e;
        }
        pending.add(new Pending(absolute, temp));
    }

    void commit() throws IOException {
        try {
            for (Pending p : pending) {
                try {
                    Files.move(p.temp(), p.target(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(p.temp(), p.target(), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } finally {
            discard();
        }
    }

    private void discard() {
        for (Pending p : pending) {
            try {
                Files.deleteIfExists(p.temp());
            } catch (IOException ignored) {
                // Best effort: a stray temp file is harmless; the targets are what must stay whole.
            }
        }
        pending.clear();
    }
}
