package dev.crucible.cli.imports;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real Pythons holding a real swebench release for the tests: a venv per release under target/swebench-pythons, made once
 * with {@code pip install --no-deps swebench==X} from pip's configured index (the specifications need none of its
 * dependencies). {@link #python} answers null, and {@link #missing} says why, where pip cannot get it.
 */
final class SweBenchPythons {
    /** The last release with MAP_REPO_VERSION_TO_SPECS, and the first without. */
    static final String WITH_SPECS = "4.1.0";
    static final String WITHOUT_SPECS = "5.0.2";

    private static final Path ROOT = Path.of("target/swebench-pythons").toAbsolutePath();
    private static String missing;

    private SweBenchPythons() {
    }

    static synchronized String missing() {
        return missing;
    }

    static synchronized Path python(String release) throws Exception {
        Path dir = ROOT.resolve(release);
        Path python = dir.resolve("bin/python");
        if (Files.exists(dir.resolve(".ready"))) return python;
        Files.createDirectories(ROOT);
        String why = run(List.of("python3", "-m", "venv", "--clear", dir.toString()));
        if (why == null) why = run(List.of(python.toString(), "-m", "pip", "install", "-q", "--no-deps", "swebench==" + release));
        if (why != null) {
            missing = "swebench " + release + " could not be installed with pip (" + why + ")";
            return null;
        }
        Files.writeString(dir.resolve(".ready"), release + "\n");
        return python;
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", cmd) + ": no answer in 300 s";
        }
        return p.exitValue() == 0 ? null : String.join(" ", cmd) + ": exit " + p.exitValue() + ": "
                + out.strip().lines().reduce((a, b) -> b).orElse("");
    }
}
