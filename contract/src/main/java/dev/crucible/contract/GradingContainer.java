package dev.crucible.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The pod contract between the operator, which builds a rollout pod's grading container, and the
 * verifier sidecar, which grades through it. The grading container runs the environment's image with
 * {@link #command()}: the runner ({@code grading_runner.py}, standard-library Python 3.8+) connects once
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
    /** The resource holding the script, next to this class. */
    public static final String RESOURCE = "grading_runner.py";

    private GradingContainer() {}

    /** The grading container's command: the environment's python3, isolated from PYTHON* variables and site. */
    public static List<String> command() {
        return List.of("python3", "-I", "-S", SCRIPT_PATH, "--socket", SOCKET, "--scratch", "/tmp");
    }

    /** The runner script's text. */
    public static String script() {
        try (InputStream in = GradingContainer.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("resource " + RESOURCE + " missing from the contract jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
