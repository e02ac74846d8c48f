package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.store.ContainedPaths;
import dev.crucible.snapshot.store.ManifestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Durable record of freezes in progress (STORE/journal/NAME.json), fsynced before acting. */
public final class FreezeJournal {

    private final Path dir;

    public FreezeJournal(Path dir) {
        this.dir = dir;
    }

    public void record(JournalEntry entry) {
        ManifestFiles.writeAtomically(file(entry.name()), entry);
    }

    public void remove(String name) {
        try {
            Files.deleteIfExists(file(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes half-written entries ("NAME.json.tmp") left by a crash during a write. Safe: the entry
     * is written before each freeze, so a torn first write means nothing was frozen yet, and a torn
     * update leaves the previous complete NAME.json in place.
     */
    public void removeTornWrites() {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().endsWith(".tmp")) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public List<JournalEntry> entries() {
        List<JournalEntry> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().endsWith(".json")) {
                    try {
                        out.add(ManifestFiles.read(f, JournalEntry.class));
                    } catch (UncheckedIOException e) {
                        // unreadable: cannot be replayed; leave it for a person to inspect
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private Path file(String name) {
        return ContainedPaths.resolve(dir, name + ".json", "journal entry");
    }
}
