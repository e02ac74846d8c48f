package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One attempt's disk: a sparse image file of exactly the limit's size, formatted ext4 and loop-mounted.
 * Whatever is written under the mount point (the workspace, the grading copies of it) lands in that
 * image, which cannot grow past its size: a write past the limit fails with ENOSPC, however fast or
 * parallel, and sparse files cost only the blocks really written. Only root can mount it; {@link #open}
 * says why when it cannot. {@link #close} unmounts it and deletes the image.
 */
public final class DiskVolume implements AutoCloseable {
    /** Free bytes under which the volume counts as full: ENOSPC leaves a few blocks that no writer could use. */
    static final long FULL_MARGIN = 8L << 20;
    private static final List<String> SBIN = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");

    /** A volume, or why none could be made ({@code volume} null then). */
    public record Opened(DiskVolume volume, String problem) {}

    private final Path image;
    private final Path mountPoint;
    private final long bytes;
    private final String kind;
    /** How long one compaction's e2fsck may take; past it, or when the volume closes, its tree is killed. */
    public static final Duration COMPACT_BOUND = Duration.ofSeconds(60);
    private final Runnable unmount;
    private final java.util.function.Consumer<DiskVolume> compact;
    private final VolumeTools tools = new VolumeTools(); // what runs for this volume now: stopped at close
    private final Object mounting = new Object(); // a compaction's mount again and close's unmount, one at a time
    private volatile boolean closed;

    private DiskVolume(Path image, Path mountPoint, long bytes, String kind, Runnable unmount, java.util.function.Consumer<DiskVolume> compact) {
        this.image = image;
        this.mountPoint = mountPoint;
        this.bytes = bytes;
        this.kind = kind;
        this.unmount = unmount;
        this.compact = compact;
    }

    /**
     * A size-capped mount someone else made on {@code mountPoint} (without root: a tmpfs in the CLI's own mount
     * namespace); {@code kind} says what it is on the run's first lines, {@code unmount} undoes it at {@link #close}.
     */
    public static DiskVolume mounted(Path mountPoint, long bytes, String kind, Runnable unmount) {
        return new DiskVolume(null, mountPoint, bytes, kind, unmount, null);
    }

    /**
     * As above, for a mount that cannot trim while mounted (fuse2fs has no FITRIM): {@code compact} unmounts it, gives
     * the host back its free blocks (e2fsck -E discard punches them out of the image, through {@link #runTool}) and mounts
     * it again on the same folder (through {@link #mountAgain}). {@link #trim} runs it, so a caller must hold nothing open
     * under the mount point then.
     */
    public static DiskVolume mounted(Path mountPoint, long bytes, String kind, Runnable unmount, java.util.function.Consumer<DiskVolume> compact) {
        return new DiskVolume(null, mountPoint, bytes, kind, unmount, compact);
    }

    /** What holds the limit, for the run's first lines: "a loop-mounted ext4 volume", "a tmpfs ...". */
    public String kind() { return kind; }

    /**
     * Makes {@code image} ({@code bytes} long, sparse), formats it and mounts it on {@code mountPoint} (made if
     * missing, and empty). No journal (a scratch volume need not survive a crash; the journal would take
     * 32 MiB of the limit), no reserved blocks, inode tables left unzeroed (the image reads as zeros).
     */
    public static Opened open(Path image, Path mountPoint, long bytes) {
        if (!Box.ROOT) return new Opened(null, "not root: a loop-mounted volume needs root");
        Path mkfs = tool("mkfs.ext4");
        if (mkfs == null) return new Opened(null, "mkfs.ext4 is missing (apt-get install -y e2fsprogs)");
        if (bytes < (16L << 20)) return new Opened(null, "a limit under 16Mi is too small for a volume");
        try {
            Files.createDirectories(mountPoint);
            try (var entries = Files.list(mountPoint)) {
                if (entries.findAny().isPresent()) return new Opened(null, mountPoint + " is not empty");
            }
            String err = format(image, bytes, "");
            // claimed before it is mounted: a later run unmounts it if this process dies without closing it (SIGKILL), and a
            // kill between the mount and the claim left a mount no sweep knew (hostred3 B4, KilledWhileMountingTest)
            if (err == null) OrphanVolumes.claim(image);
            if (err == null) err = run(List.of("mount", "-t", "ext4", "-o", "loop,nosuid,nodev,noinit_itable", image.toString(), mountPoint.toString()));
            if (err != null) {
                Files.deleteIfExists(image);
                Files.deleteIfExists(OrphanVolumes.ownerFile(image));
                return new Opened(null, err);
            }
            DiskVolume v = new DiskVolume(image, mountPoint, bytes, "a loop-mounted ext4 volume", null, null);
            Files.deleteIfExists(mountPoint.resolve("lost+found"));
            return new Opened(v, null);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(image);
                Files.deleteIfExists(OrphanVolumes.ownerFile(image));
            } catch (IOException ignored) {
                // nothing more to undo
            }
            return new Opened(null, "could not make the volume: " + e.getMessage());
        }
    }

    /**
     * Makes {@code image} ({@code bytes} long, sparse: the host gives blocks only as the volume writes them) and formats it;
     * {@code options}: more of mkfs's -E options (",root_owner=UID:GID"). Null, or what went wrong.
     */
    public static String format(Path image, long bytes, String options) throws IOException {
        Path mkfs = tool("mkfs.ext4");
        if (mkfs == null) return "mkfs.ext4 is missing (apt-get install -y e2fsprogs)";
        Files.deleteIfExists(image);
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return run(List.of(mkfs.toString(), "-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "lazy_itable_init=1,nodiscard" + options,
                image.toString()));
    }

    public Path mountPoint() { return mountPoint; }

    public long bytes() { return bytes; }

    /** Bytes in use on the volume (data and file system), from statvfs. */
    public long used() {
        try {
            var s = Files.getFileStore(mountPoint);
            return s.getTotalSpace() - s.getUnallocatedSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    /** True when no writer can add more: its free blocks are down to {@link #FULL_MARGIN}. */
    public boolean full() {
        if (closed) return false;
        try {
            return Files.getFileStore(mountPoint).getUsableSpace() < FULL_MARGIN;
        } catch (IOException e) {
            return false;
        }
    }

    /** The reason result.json gives when the volume filled. */
    public String reason() {
        return "disk limit " + Quantities.human(bytes) + " reached (" + whatFilled() + ")";
    }

    /**
     * What ran out: its bytes, or its inodes (a flood of small files fills an ext4 volume's inode table long before its
     * bytes, and ENOSPC then named a byte count far under the limit: host round 4).
     */
    public String whatFilled() {
        return freeInodes() == 0
                ? "the attempt's volume has no inodes left: too many files and folders for its size, with " + Quantities.human(used()) + " of its bytes used"
                : "the attempt's volume is full: " + Quantities.human(used()) + " used";
    }

    /** Free inodes on the volume ({@code stat -f}), -1 when unknown: read when a write failed, never per poll (a process). */
    public long freeInodes() {
        Path stat = tool("stat");
        if (stat == null || closed) return -1;
        String out = tools.output(List.of(stat.toString(), "-f", "-c", "%d", mountPoint.toString()), Duration.ofSeconds(10));
        return out != null && out.matches("\\d{1,18}") ? Long.parseLong(out) : -1;
    }

    /** Gives the host back the blocks of files deleted on the volume (the image's holes are punched again). */
    public void trim() {
        if (closed) return;
        if (image == null) {
            if (compact != null) compact.accept(this); // else a tmpfs: it gives its pages back on unlink
            return;
        }
        run(List.of("sync", "-f", mountPoint.toString()));
        Path fstrim = tool("fstrim");
        if (fstrim != null) run(List.of(fstrim.toString(), mountPoint.toString()));
    }

    /**
     * Runs a system tool for this volume (a compaction's e2fsck) within {@code bound}: null when it exited 0, else what it
     * said or why it did not finish. {@link #stopTools} and {@link #close} kill it with its children.
     */
    public String runTool(List<String> argv, Duration bound) { return tools.run(argv, bound); }

    /**
     * A compaction's mount again ({@code mount} returns null or what went wrong), unless the volume is closing: then nothing
     * is mounted (close's unmount ran, or runs next) and the answer says so.
     */
    public String mountAgain(java.util.function.Supplier<String> mount) {
        synchronized (mounting) {
            return closing() ? "not mounted again: the volume is closing" : mount.get();
        }
    }

    /** True once {@link #close} or {@link #stopTools} began: nothing more is run or mounted for it. */
    public boolean closing() { return closed || tools.stopped(); }

    /**
     * Kills the tools running for this volume (a compaction's e2fsck, with its children) and starts no more: the run is
     * ending (stopped, timed out, or its cleanup past its bound) and must not wait on them. The volume stays as it is
     * until {@link #close}.
     */
    public void stopTools() { tools.stop(); }

    /** Unmounts (lazily when something still holds it: it goes when that ends) and deletes the image; a compaction running is stopped. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        tools.stop();
        if (unmount != null) {
            synchronized (mounting) {
                unmount.run();
            }
            return;
        }
        String err = null;
        for (int i = 0; i < 10; i++) {
            err = run(List.of("umount", mountPoint.toString()));
            if (err == null) break;
            sleep(100); // a killed box's last process releases the mount a moment after SIGKILL
        }
        if (err != null) run(List.of("umount", "-l", mountPoint.toString()));
        try {
            Files.deleteIfExists(image);
            Files.deleteIfExists(OrphanVolumes.ownerFile(image));
        } catch (IOException e) {
            // unlinked already, or its folder went first
        }
    }

    /** Null when {@code argv} exited 0 within 120 s (its tree killed past that), else what it said. */
    public static String run(List<String> argv) {
        return new VolumeTools().run(argv, Duration.ofSeconds(120));
    }

    /** The system tool {@code name} from the sbin and bin folders, or null. */
    public static Path tool(String name) {
        List<Path> found = new ArrayList<>();
        for (String d : SBIN) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) found.add(p);
        }
        return found.isEmpty() ? null : found.get(0);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
