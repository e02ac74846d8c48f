package dev.crucible.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Writes of the host's own files (result.json, setup.log, task.md…) into an output folder that someone else may have
 * written in first: a root CLI run into a folder another user made wrote its result through that user's link onto a
 * root-owned file (hostred3 B2). A file is replaced by a fresh temporary file in the same folder (created with
 * {@code O_CREAT|O_EXCL}, which never follows a link) renamed over the name (rename(2) replaces a link itself, never its
 * target); an append opens with {@code O_NOFOLLOW}. {@link #ownerRefusal} is the folder rule: one owned by another user
 * is refused, since whoever owns it can also swap its sub-folders for links.
 */
public final class OutputFolder {
    private OutputFolder() {}

    /** Replaces {@code file} with {@code text} (UTF-8) without following a link at its name. */
    public static void replace(Path file, String text) throws IOException {
        replace(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Replaces {@code file} with {@code bytes} without following a link at its name. */
    public static void replace(Path file, byte[] bytes) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            Files.write(tmp, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Appends to {@code file} (made when missing); a link at its name fails the open ({@code O_NOFOLLOW}: ELOOP). */
    public static OutputStream append(Path file) throws IOException {
        return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
    }

    /** Appends {@code text} to {@code file} as {@link #append(Path)} does. */
    public static void appendText(Path file, String text) throws IOException {
        try (OutputStream o = append(file)) {
            o.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * Null when {@code dir} (an existing folder, links followed: a user's own link to their folder is fine) belongs to
     * this process's user; else why it is refused, naming {@code field}.
     */
    public static String ownerRefusal(Path dir, String field) throws IOException {
        int mine = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"); // /proc/self is owned by the effective uid
        int owner = (Integer) Files.getAttribute(dir, "unix:uid");
        if (owner == mine) return null;
        return field + ": " + dir + " belongs to uid " + owner + ", not to this user (uid " + mine + "): its owner could plant links"
                + " there that make this run write over other files; use a folder of your own";
    }
}
