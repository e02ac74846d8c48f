package dev.crucible.probe.python;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Python with torch, transformers and onnx that `probe bench` (its torch side) and `probe
 * export` run, and the helper scripts in probe-server/fixtures. The server itself never needs it.
 */
public final class ProbePython {
    public static final String ENV = "CRUCIBLE_PROBE_PYTHON";
    public static final String INSTALL_HINT = "run probe-server/fixtures/install-probe-python.sh and pass the python "
            + "it prints as --python or $" + ENV;

    private ProbePython() {
    }

    /** --python, else $CRUCIBLE_PROBE_PYTHON, else ~/.venvs/probe/bin/python (which may not exist). */
    public static Path find(Path explicit) {
        if (explicit != null) {
            return explicit;
        }
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".venvs", "probe", "bin", "python");
    }

    /** Null when {@code python} can run, else one line saying it cannot and how to get one. */
    public static String unusable(Path python) {
        return python != null && Files.isExecutable(python) ? null
                : "no python at " + python + " (" + INSTALL_HINT + ")";
    }

    /**
     * probe-server/fixtures/{@code name}, looked for from the working directory up to the
     * repository root (the CLI runs from a checkout); null when not found.
     */
    public static Path script(String name) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            for (Path c : List.of(dir.resolve("probe-server/fixtures").resolve(name), dir.resolve("fixtures").resolve(name))) {
                if (Files.isRegularFile(c)) {
                    return c;
                }
            }
            dir = dir.getParent();
        }
        return null;
    }
}
