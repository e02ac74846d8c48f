package dev.crucible.cli.run;

import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.DiskVolume;
import dev.crucible.verifier.sandbox.Quantities;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The disk limit's hard cap without root (issue 34 point 3). Only root can loop-mount a volume, but any user
 * may own a user and mount namespace and mount a tmpfs with {@code size=} in it. So {@code crucible run}, not
 * root, runs itself again in such a namespace ({@link #reexec}), mapped to its own uid (files stay the user's,
 * nothing else changes: same paths, same host file system), with a small mount helper beside it
 * ({@code tmpfs_helper.py}) that keeps the namespace's capabilities, which the CLI itself drops before it
 * starts (bubblewrap refuses to run with them). Each attempt's sandbox folder is then a tmpfs of the limit's
 * size ({@link #tmpfs}): the workspace and the grading copies lie on it, a write past it fails with ENOSPC,
 * sparse files cost only what is written. Its pages are memory, not disk, so it is used only for a limit up to
 * half the memory available; past that, or where the namespace cannot be made, the run says why on its first lines.
 * The namespace, and every tmpfs in it, ends with the CLI: nothing is left mounted after a kill.
 */
public final class MountNamespace {
    static final String HELPER_ENV = "CRUCIBLE_MOUNT_HELPER";
    /** CRUCIBLE_DISK_NAMESPACE=0 keeps a run without root in the host's namespaces (its disk limit is then polled). */
    static final String OFF_ENV = "CRUCIBLE_DISK_NAMESPACE";
    /** CRUCIBLE_DISK_VOLUME=image puts the limit on an ext4 image (disk) even where a tmpfs (memory) would fit. */
    static final String KIND_ENV = "CRUCIBLE_DISK_VOLUME";
    static final String UNSHARE = "/usr/bin/unshare";
    static final String SETPRIV = "/usr/bin/setpriv";
    /** Why this run has no namespace (null: it has one, or it is root's, which needs none). */
    private static volatile String problem;

    private MountNamespace() {}

    /**
     * Runs this command again inside a namespace of its own and returns its exit status, or null to go on in this
     * process: root (a loop-mounted volume needs no namespace), another command than {@code run}, already inside,
     * or no namespace possible here ({@link #problem} then says why).
     */
    public static Integer reexec(String[] args) {
        // the command first: other commands (validate's start-up is measured) never load the box's classes here
        if (args.length == 0 || !"run".equals(args[0]) || System.getenv(HELPER_ENV) != null
                || List.of(args).contains("--help") || List.of(args).contains("-h") || Box.ROOT) return null;
        if ("0".equals(System.getenv(OFF_ENV))) return none(OFF_ENV + "=0 is set");
        if (!Files.isExecutable(Path.of(UNSHARE)) || !Files.isExecutable(Path.of(SETPRIV))) return none(UNSHARE + " or " + SETPRIV + " is missing");
        String probe = DiskVolume.run(List.of(UNSHARE, "--map-current-user", "--mount", "--keep-caps", "true"));
        if (probe != null) return none("no user and mount namespace can be made here: " + probe);
        Path dir;
        try {
            // named for this process: a SIGKILL here runs no clean-up, and the next run's StaleStateFolders sweep removes it
            dir = Files.createTempDirectory(StaleStateFolders.MOUNTNS_PREFIX + dev.crucible.verifier.exec.ProcessTable.selfTag() + "-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            try (InputStream in = MountNamespace.class.getResourceAsStream("tmpfs_helper.py")) {
                Files.write(dir.resolve("helper.py"), in.readAllBytes());
            }
        } catch (IOException | RuntimeException e) {
            return none("the mount helper could not be written: " + e.getMessage());
        }
        List<String> cmd = new ArrayList<>(List.of(UNSHARE, "--map-current-user", "--mount", "--keep-caps", "/bin/sh", "-c",
                "python3 -I \"$1\" \"$2\" & shift 2; exec " + SETPRIV + " --inh-caps=-all --ambient-caps=-all --pdeathsig TERM \"$@\"", "sh",
                dir.resolve("helper.py").toString(), dir.resolve("helper.sock").toString()));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-XX:ArchiveClassesAtExit")) cmd.add(a); // the launcher's archive is this process's to write
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.crucible.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().put(HELPER_ENV, dir.resolve("helper.sock").toString());
        try {
            Interruption.recordSignals(); // so the run inside hears the signal this process got, not always SIGTERM
            Process p = pb.start();
            // SIGTERM, SIGHUP or Ctrl-C here goes on to the run, which writes its result (Interrupted) and cleans up first; a
            // SIGKILL here reaches it as SIGTERM (--pdeathsig), so it never runs on alone
            // the folder too: on a signal this thread's waitFor never returns before the JVM ends (host round 8, cases 18, 19)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stop(p);
                dev.crucible.verifier.pristine.TreeCopy.delete(dir);
            }, "crucible-mountns-forward"));
            int rc = p.waitFor();
            dev.crucible.verifier.pristine.TreeCopy.delete(dir);
            return rc;
        } catch (IOException e) {
            dev.crucible.verifier.pristine.TreeCopy.delete(dir);
            return none("the namespace could not be entered: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static void stop(Process p) {
        if (!p.isAlive()) return;
        String sig = Interruption.received; // the child is ours and alive: its pid names it until we reap it
        boolean forwarded = false;
        if (sig != null && !"SIGTERM".equals(sig)) {
            try {
                forwarded = new ProcessBuilder("kill", "-s", sig.substring(3), Long.toString(p.pid())).start().waitFor() == 0;
            } catch (IOException | InterruptedException e) {
                // SIGTERM below
            }
        }
        if (!forwarded) p.destroy();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) p.destroyForcibly();
        } catch (InterruptedException e) {
            p.destroyForcibly();
        }
    }

    private static Integer none(String why) {
        problem = why;
        return null;
    }

    /** Inside a namespace with its mount helper. */
    static boolean inside() {
        return System.getenv(HELPER_ENV) != null;
    }

    /**
     * A size-capped volume of {@code bytes} on {@code mountPoint} (made if missing; must be empty), or why not: a tmpfs
     * when the limit is at most half the memory available, else (or with {@value #KIND_ENV}=image) an ext4 image
     * ({@code image}, sparse) mounted by fuse2fs, whose bytes are the host's disk, not memory.
     */
    static DiskVolume.Opened volume(Path image, Path mountPoint, long bytes) {
        if (!inside()) return new DiskVolume.Opened(null, "not root, and no mount namespace of its own (" + (problem == null ? "not made" : problem) + ")");
        long avail = memAvailable();
        boolean fits = avail <= 0 || bytes <= avail / 2;
        if (fits && !"image".equals(System.getenv(KIND_ENV))) return tmpfs(mountPoint, bytes);
        DiskVolume.Opened o = fuseImage(image, mountPoint, bytes);
        if (o.volume() != null || fits) return o;
        return new DiskVolume.Opened(null, "not root, a tmpfs of " + Quantities.human(bytes) + " would hold it in memory (more than half of the "
                + Quantities.human(avail) + " available), and " + o.problem() + "; set a smaller spec.resources.ephemeralStorage");
    }

    static final Path FUSE_DEVICE = Path.of("/dev/fuse");

    /** Whether this process may open /dev/fuse for reading and writing (access(2), as fuse2fs will). */
    public static boolean fuseDeviceOpen() {
        return java.nio.file.Files.isReadable(FUSE_DEVICE) && java.nio.file.Files.isWritable(FUSE_DEVICE);
    }

    /** An ext4 image of {@code bytes} served by fuse2fs on {@code mountPoint} (through the helper), the image deleted at close. */
    private static DiskVolume.Opened fuseImage(Path image, Path mountPoint, long bytes) {
        if (DiskVolume.tool("fuse2fs") == null) return new DiskVolume.Opened(null, "fuse2fs is missing (apt-get install -y fuse2fs)");
        // checked here, before an image is formatted: FUSE without root needs /dev/fuse open to this user (often mode 0600, root's)
        if (!fuseDeviceOpen()) return new DiskVolume.Opened(null, "/dev/fuse is not open to this user (" + FUSE_DEVICE + " needs read and write;"
                + " a machine that grants it, e.g. chmod 0666 /dev/fuse, gets the image)");
        String err = emptyFolder(mountPoint);
        if (err != null) return new DiskVolume.Opened(null, err);
        Path at = mountPoint.toAbsolutePath().normalize();
        Path img = image.toAbsolutePath().normalize();
        try {
            // the volume's root is the user's (the box maps its root to this uid), not the image's uid 0, which is nobody here
            err = DiskVolume.format(img, bytes, ",root_owner=" + uid() + ":" + gid());
            // lost+found stays uid 0's, nobody's in here: no one could move or remove it (the root path deletes it once mounted)
            Path debugfs = DiskVolume.tool("debugfs");
            if (err == null && debugfs != null) err = DiskVolume.run(List.of(debugfs.toString(), "-w", "-R", "rmdir lost+found", img.toString()));
        } catch (IOException e) {
            err = "the image could not be made: " + e.getMessage();
        }
        if (err == null) err = request("fuse\t" + img + "\t" + at);
        if (err != null) {
            dev.crucible.verifier.pristine.TreeCopy.delete(img);
            return new DiskVolume.Opened(null, "the ext4 image could not be mounted with fuse2fs: " + err);
        }
        return new DiskVolume.Opened(DiskVolume.mounted(at, bytes, "an ext4 image mounted by fuse2fs in the run's own mount namespace (disk, not memory)",
                () -> {
                    request("umount\t" + at);
                    dev.crucible.verifier.pristine.TreeCopy.delete(img);
                }, v -> compact(img, at, v)), null);
    }

    /**
     * Gives the host back an image's free blocks: fuse2fs cannot trim (no FITRIM through FUSE), and the image keeps
     * every block the agent ever wrote. Unmounted (the helper waits for fuse2fs to end), e2fsck -E discard punches the
     * free blocks out of the image, and it is mounted again on the same folder. Only once the agent has ended: the
     * workspace is moved off the volume piece by piece, and without this the host would hold it twice. e2fsck runs for
     * {@link DiskVolume#COMPACT_BOUND} at most, and is killed when the volume closes or its run ends ({@link DiskVolume#stopTools}):
     * the image is then not mounted again, and goes with the volume.
     */
    private static void compact(Path img, Path at, DiskVolume v) {
        String err = request("umount\t" + at);
        Path e2fsck = DiskVolume.tool("e2fsck");
        if (err == null && e2fsck != null) {
            List<String> check = List.of(e2fsck.toString(), "-f", "-y", "-E", "discard", img.toString());
            err = v.runTool(check, DiskVolume.COMPACT_BOUND);
            // exit 1, "errors corrected": the first time it puts back the lost+found removed at creation, and e2fsck discards
            // nothing in a run that changed the file system; once more, clean, it does
            if (err != null && err.startsWith(e2fsck + " exited 1")) err = v.runTool(check, DiskVolume.COMPACT_BOUND);
        }
        String again = v.mountAgain(() -> request("fuse\t" + img + "\t" + at));
        if (again != null && v.closing()) return; // the run is ending: the image goes with the volume
        if (again != null) throw new IllegalStateException("the disk image could not be mounted again after compacting it: " + again);
        if (err != null) System.err.println("crucible run: the disk image was not compacted (" + err + "); the host holds its blocks until the run ends");
    }

    /** A tmpfs of {@code bytes} on {@code mountPoint}. */
    private static DiskVolume.Opened tmpfs(Path mountPoint, long bytes) {
        String err = emptyFolder(mountPoint);
        if (err != null) return new DiskVolume.Opened(null, err);
        Path at = mountPoint.toAbsolutePath().normalize();
        err = request("mount\t" + at + "\t" + bytes);
        if (err != null) return new DiskVolume.Opened(null, "the tmpfs could not be mounted: " + err);
        return new DiskVolume.Opened(DiskVolume.mounted(at, bytes, "a tmpfs in the run's own mount namespace (memory, not disk)",
                () -> request("umount\t" + at)), null);
    }

    /** Makes {@code mountPoint} if missing: null when it is an empty folder, else why not. */
    private static String emptyFolder(Path mountPoint) {
        try {
            Files.createDirectories(mountPoint);
            try (var entries = Files.list(mountPoint)) {
                return entries.findAny().isPresent() ? mountPoint + " is not empty" : null;
            }
        } catch (IOException e) {
            return "could not make " + mountPoint + ": " + e.getMessage();
        }
    }

    private static String uid() { return idOf("Uid:"); }

    private static String gid() { return idOf("Gid:"); }

    /** This process's effective uid or gid, from /proc (JAAS's UnixSystem answers 0 for a uid without a passwd entry). */
    private static String idOf(String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) if (l.startsWith(field)) return l.split("\\s+")[2];
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new IllegalStateException("/proc/self/status has no " + field);
    }

    /** Null when the helper did it, else what it or the socket said. */
    private static String request(String line) {
        Path sock = Path.of(System.getenv(HELPER_ENV));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                // a helper that never answers must not hold the attempt: closing the channel ends the blocked read
                java.util.concurrent.CompletableFuture.delayedExecutor(20, TimeUnit.SECONDS).execute(() -> {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // closed already
                    }
                });
                ch.connect(UnixDomainSocketAddress.of(sock));
                ch.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
                String answer = new String(Channels.newInputStream(ch).readNBytes(4096), StandardCharsets.UTF_8).strip();
                return answer.equals("ok") ? null : answer.isEmpty() ? "the mount helper gave no answer" : answer;
            } catch (java.nio.channels.AsynchronousCloseException e) {
                return "the mount helper did not answer within 20 s";
            } catch (IOException e) {
                if (System.nanoTime() > until) return "mount helper at " + sock + ": " + e.getMessage();
                try {
                    Thread.sleep(50); // the helper starts beside the CLI: its socket may not be bound yet
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return "interrupted";
                }
            }
        }
    }

    private static long memAvailable() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemAvailable:")) return Long.parseLong(l.replaceAll("[^0-9]", "")) << 10;
            }
        } catch (IOException | NumberFormatException e) {
            // unknown: not refused for it
        }
        return 0;
    }
}
