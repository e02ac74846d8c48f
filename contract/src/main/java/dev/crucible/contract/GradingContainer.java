package dev.crucible.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The pod contract between the operator, which builds a rollout pod's grading container, and the
 * verifier sidecar, which grades through it. The grading container runs the environment's image with
 * {@link #command()}: the runner ({@code grading_runner/}'s parts joined, standard-library Python 3.8+) connects once
 * to the sidecar's socket {@link #SOCKET} on the grading volume (mounted at {@link #MOUNT} in these two
 * containers only) and runs the graded commands the sidecar sends, each in grading trees the sidecar
 * builds under {@link #TREES} at grading time.
 */
public final class GradingContainer {
    /** Where the grading volume is mounted, in the sidecar and in the grading container alike. */
    public static final String MOUNT = "/crucible/grading";
    /** The sidecar's socket; removed once the runner connected. */
    public static final String SOCKET = MOUNT + "/runner.sock";
    /** The sidecar's grading trees (grade-N, results-N, support-N). */
    public static final String TREES = MOUNT + "/trees";
    /** Where the runner script is mounted in the grading container (a key of the rollout's ConfigMap). */
    public static final String SCRIPT_PATH = "/crucible/grading-runner.py";
    /** The ConfigMap key holding the runner script. */
    public static final String CONFIG_KEY = "grading-runner.py";
    /** The folder of resources, next to this class, whose parts joined in {@link #PARTS}' order are the script. */
    public static final String RESOURCE = "grading_runner";
    /**
     * The script's parts: the box and the network guard, the container's processes, the session with the sidecar.
     * Joined, they are the one file the container runs ({@code python3 -I -S} of a ConfigMap key: no imports of its own).
     */
    public static final List<String> PARTS = List.of("runner_box.py", "runner_processes.py", "runner_session.py");

    private GradingContainer() {}

    /** The grading container's command: the environment's python3, isolated from PYTHON* variables and site. */
    public static List<String> command() {
        return List.of("python3", "-I", "-S", SCRIPT_PATH, "--socket", SOCKET, "--scratch", "/tmp");
    }

    /** The runner script's text. */
    public static String script() {
        StringBuilder out = new StringBuilder();
        for (String part : PARTS) {
            try (InputStream in = GradingContainer.class.getResourceAsStream(RESOURCE + "/" + part)) {
                if (in == null) throw new IllegalStateException("resource " + RESOURCE + "/" + part + " missing from the contract jar");
                out.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.toString();
    }
}
