package dev.crucible.verifier.exec;

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
 */
public final class SharedTmp {
    /** A boxed graded command's TMPDIR. */
    public static final String BOX_TMP = "/tmp";
    /** Where the grading box and the oracle workers' boxes show {@link #of}: a name no host folder a box binds is likely to lie under. */
    public static final Path IN_BOX = Path.of("/tmp/.crucible-shared");

    private SharedTmp() {}

    /** The folder shown as {@link #IN_BOX}: {@code results-N/shared}. */
    public static Path of(Path results) { return results.resolve("shared"); }

    /** Where {@code p}, inside {@link #of}{@code (results)}, is seen in those boxes. */
    public static Path inBox(Path results, Path p) {
        Path rel = of(results).toAbsolutePath().normalize().relativize(p.toAbsolutePath().normalize());
        if (rel.startsWith("..")) throw new IllegalArgumentException(p + " is not inside " + of(results));
        return IN_BOX.resolve(rel.toString());
    }
}
