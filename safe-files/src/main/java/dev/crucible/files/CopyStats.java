package dev.crucible.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a copy of untrusted files did: how many files, links and folders it made, the data bytes it
 * wrote (holes are not written), what it left out and why, and the host disk its destination takes
 * ({@link #allocatedBytes}), which a caller counts against the attempt's disk limit. One copy fills
 * one instance; it is not thread-safe.
 */
public final class CopyStats {
    /** An entry left out of the copy: its path relative to the copy's source, and why. */
    public record Skipped(String path, String reason) {
        @Override
        public String toString() { return path + ": " + reason; }
    }

    private long files;
    private long links;
    private long directories;
    private long apparentBytes;
    private long writtenBytes;
    private long allocatedBytes = -1;
    private long hardLinks;
    private Path destination;
    private final List<Skipped> skipped = new ArrayList<>();
    /** Source identity (device and inode) of each multiply-linked file copied so far, to its first copy. */
    private final java.util.Map<Object, Path> linkedCopies = new java.util.HashMap<>();

    void file(long apparent, long written) {
        files++;
        apparentBytes += apparent;
        writtenBytes += written;
    }

    void link() { links++; }

    /** A file made as a hard link to an earlier copy of the same source inode: no bytes written. */
    void hardLink() {
        files++;
        hardLinks++;
    }

    Path linkedCopy(Object sourceKey) { return linkedCopies.get(sourceKey); }

    void copiedLinked(Object sourceKey, Path copy) { linkedCopies.putIfAbsent(sourceKey, copy); }

    /** Files made as hard links to an earlier copy (the source had them linked): they take no disk of their own. */
    public long hardLinks() { return hardLinks; }

    void directory() { directories++; }

    public void skip(String path, String reason) { skipped.add(new Skipped(path, reason)); }

    /** Adds another copy's counts into this one (a grading tree is built from several sources). */
    public CopyStats add(CopyStats o) {
        files += o.files;
        links += o.links;
        directories += o.directories;
        apparentBytes += o.apparentBytes;
        writtenBytes += o.writtenBytes;
        hardLinks += o.hardLinks;
        skipped.addAll(o.skipped);
        return this;
    }

    public long files() { return files; }

    public long links() { return links; }

    public long directories() { return directories; }

    /** The copied files' sizes as {@code ls} shows them, holes included. */
    public long apparentBytes() { return apparentBytes; }

    /**
     * The data the copied files hold on disk, in whole 4 KiB blocks: holes of sparse files and blocks of
     * zeros are not written, so they take none.
     */
    public long writtenBytes() { return writtenBytes; }

    public List<Skipped> skipped() { return Collections.unmodifiableList(skipped); }

    /**
     * The host disk the destination takes, in bytes, as {@code du -s -B1} measures it on the first call after
     * {@link #measure} (a copy whose caller never asks costs no {@code du}); before that, or where {@code du}
     * could not run, the written blocks plus a block per folder and link, which is what ext4 and tmpfs
     * allocate for them.
     */
    public long allocatedBytes() {
        if (allocatedBytes < 0 && destination != null) {
            Long du = allocated(destination);
            destination = null;
            if (du != null) allocatedBytes = du;
        }
        if (allocatedBytes >= 0) return allocatedBytes;
        return writtenBytes + 4096 * (directories + links);
    }

    /** Names the copy's destination, where {@link #allocatedBytes} is measured (with {@code du}, which does not follow links). */
    public CopyStats measure(Path destination) {
        this.destination = destination;
        this.allocatedBytes = -1;
        return this;
    }

    /** The disk blocks under {@code p} in bytes ({@code du -s -B1}), or null when {@code du} did not answer within 60 s. */
    public static Long allocated(Path p) {
        try {
            Process proc = new ProcessBuilder("du", "-s", "-B1", "--", p.toAbsolutePath().toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out;
            try (InputStream in = proc.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!proc.waitFor(60, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                return null;
            }
            if (proc.exitValue() != 0 || out.isEmpty()) return null;
            return Long.parseLong(out.split("\\s+")[0]);
        } catch (IOException | NumberFormatException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public String toString() {
        return files + " files" + (hardLinks > 0 ? " (" + hardLinks + " hard links)" : "") + ", " + links + " links, " + directories + " folders, " + writtenBytes + " bytes written of " + apparentBytes
                + ", " + allocatedBytes() + " bytes allocated" + (skipped.isEmpty() ? "" : ", skipped " + skipped);
    }
}
