package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@code .pth} file in the environment venv's site folders that appends the folders named in
 * {@link #VAR} to {@code sys.path} at every interpreter start. Grading loads its pytest reporter and
 * unittest hooks through {@code PYTHONPATH}, and a wrapper that sets {@code PYTHONPATH} itself
 * (fastapi's {@code scripts/test.sh}: {@code export PYTHONPATH=./docs_src}) dropped them: "Error importing
 * plugin crucible_reporter". The grader sets {@link #VAR} too, which wrappers leave alone. Only folders not
 * already on the path are added, after the rest, so nothing the project sets is shadowed. Outside grading the
 * variable is unset and the line does nothing; the agent setting it changes only its own processes.
 */
public final class GraderPath {
    public static final String VAR = "CRUCIBLE_GRADER_PYTHONPATH";
    static final String FILE = "_crucible_grader_path.pth";
    static final String LINE = "import os, sys; [sys.path.append(d) for d in os.environ.get('" + VAR
            + "', '').split(os.pathsep) if d and d not in sys.path]\n";

    private GraderPath() {}

    /**
     * Writes the {@code .pth} file into each of {@code sites} (the venv's own site folders), only where it is not there
     * already: the prefix is shared by the attempts of an environment, and a rewrite during another attempt's run is a
     * start-up hook changed under that attempt's monitor (an honest attempt was flagged that way).
     */
    static void install(List<Path> sites) throws IOException {
        for (Path site : sites) {
            Path f = site.resolve(FILE);
            if (!Files.isDirectory(site) || Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) && LINE.equals(Files.readString(f))) continue;
            Files.writeString(f, LINE);
        }
    }
}
