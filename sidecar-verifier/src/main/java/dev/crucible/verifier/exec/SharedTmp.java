package dev.crucible.verifier.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Short temporary paths for graded commands. Unix sockets a test binds under its temporary folder (pytest's tmp_path,
 * {@code tempfile.mkdtemp()}: httpx/uvicorn, asyncio {@code start_unix_server}, multiprocessing managers) must fit the
 * 108-byte sun_path limit; the results folder (~93 bytes under a run's folder) did not, and honest suites failed at
 * grading with "AF_UNIX path too long" where they passed in the agent's box.
 *
 * <p>A boxed graded command's TMPDIR is {@link #BOX_TMP}, the box's own /tmp (a fresh tmpfs per command, as the agent's
 * box has it; the agent's commands get no TMPDIR, so /tmp). What a grading box shares with the boxes it asks for (the
 * isolated oracle's workers: pytest's tmp_path, the workers' TMPDIR) lies in {@code results-N/shared}, which the grading
 * box and each worker's box show at {@link #IN_BOX}: short, on the results folder's disk, private to that grading.
 *
 * <p>A graded command run on this host without a box (no bubblewrap: a CI container without user namespaces; the
 * fallback {@code crucible run} warns about) has no /tmp of its own: its TMPDIR is {@link #hostTmp}, a short link in
 * /tmp to the results folder's {@code home}, so what it writes still lies in the results folder while socket paths fit.
 */
public final class SharedTmp {
    /** A boxed graded command's TMPDIR. */
    public static final String BOX_TMP = "/tmp";
    /** Where the grading box and the oracle workers' boxes show {@link #of}: a name no host folder a box binds is likely to lie under. */
    public static final Path IN_BOX = Path.of("/tmp/.crucible-shared");

    private SharedTmp() {}

    /** The folder shown as {@link #IN_BOX}: {@code results-N/shared}. */
    public static Path of(Path results) { return results.resolve("shared"); }

    /** Where an unboxed graded command on this host gets its TMPDIR: {@code /tmp/crucible-tmp-HASH}, linked to {@code results/home}. */
    public static Path hostTmp(Path results) throws IOException {
        Path home = results.resolve("home").toAbsolutePath().normalize();
        Path link = hostLink(results);
        if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(home)) return link;
        Files.deleteIfExists(link); // a link left by an earlier grading of the same folder, or not a link at all: made anew
        return Files.createSymbolicLink(link, home);
    }

    /** Removes {@link #hostTmp}'s link of {@code results}, if it made one (a link to another folder is not its own). */
    public static void releaseHost(Path results) {
        Path link = hostLink(results);
        try {
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(results.resolve("home").toAbsolutePath().normalize())) {
                Files.delete(link);
            }
        } catch (IOException e) {
            // left in /tmp: a dangling link, replaced by the next grading of the same folder
        }
    }

    private static Path hostLink(Path results) {
        String key = results.toAbsolutePath().normalize().toString();
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return Path.of(Files.isDirectory(Path.of("/tmp"), LinkOption.NOFOLLOW_LINKS) ? "/tmp" : System.getProperty("java.io.tmpdir"),
                    "crucible-tmp-" + java.util.HexFormat.of().formatHex(h, 0, 8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where {@code p}, inside {@link #of}{@code (results)}, is seen in those boxes. */
    public static Path inBox(Path results, Path p) {
        Path rel = of(results).toAbsolutePath().normalize().relativize(p.toAbsolutePath().normalize());
        if (rel.startsWith("..")) throw new IllegalArgumentException(p + " is not inside " + of(results));
        return IN_BOX.resolve(rel.toString());
    }
}
