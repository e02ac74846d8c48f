package dev.crucible.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The pod contract of a rollout pod's oracle-worker container (issue 33): the isolated oracle's untrusted
 * workers run there, from the environment's image, started by {@code oracle_spawner.py} when the grading
 * process asks. The oracle volume holds {@link #IO} (the FIFOs and scratch folder of each grading, mounted at the
 * same path in the sidecar, the grading container and this one) and {@link #CTL} (the spawner's socket, in the
 * sidecar and this container only). The sidecar's copies of the grading trees without their trusted test files,
 * {@link #TREES}, are on the grading volume (hard links to the trees' files: one file system, so a copy costs a
 * link per file), and only that folder of it is shown to this container, read-only, at {@link GradingContainer#TREES},
 * the path the grading container sees the real trees at.
 */
public final class OracleContainer {
    /** Where the sidecar mounts the whole oracle volume. */
    public static final String MOUNT = "/crucible/oracle";
    /** The FIFO and scratch folders; the same path in the sidecar, the grading container and the worker container. */
    public static final String IO = MOUNT + "/io";
    /** The volume's sub-path of {@link #IO}. */
    public static final String IO_SUBPATH = "io";
    /** The grading volume's sub-path holding the sidecar's copies of the grading trees, beside GradingContainer.TREES. */
    public static final String TREES_SUBPATH = "oracle-trees";
    /** The copies in the sidecar; the worker container sees them at GradingContainer.TREES. */
    public static final String TREES = GradingContainer.MOUNT + "/" + TREES_SUBPATH;
    /** The spawner's socket folder (sidecar and worker container only; the socket is removed once the spawner connected). */
    public static final String CTL = MOUNT + "/ctl";
    /** The volume's sub-path of {@link #CTL}. */
    public static final String CTL_SUBPATH = "ctl";
    /** The sidecar's socket for the spawner. */
    public static final String SOCKET = CTL + "/spawner.sock";
    /** Where the spawner script is mounted in the worker container (a key of the rollout's ConfigMap). */
    public static final String SCRIPT_PATH = "/crucible/oracle-spawner.py";
    /** The ConfigMap key holding the spawner script. */
    public static final String CONFIG_KEY = "oracle-spawner.py";
    /** The resource holding the script, next to this class. */
    public static final String RESOURCE = "oracle_spawner.py";

    private OracleContainer() {}

    /** The worker container's command: the environment's python3, isolated; the grading runner lends its hardening. */
    public static List<String> command() {
        return List.of("python3", "-I", "-S", SCRIPT_PATH, "--socket", SOCKET, "--runner", GradingContainer.SCRIPT_PATH);
    }

    /** The spawner script's text. */
    public static String script() {
        try (InputStream in = OracleContainer.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("resource " + RESOURCE + " missing from the contract jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
