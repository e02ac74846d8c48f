package dev.crucible.verifier.grade.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trusted side's modules come with byte code (compiled in a box of its own, once per interpreter) the interpreter takes as it is (the trusted process runs with -B and
 * compiled every module on each run): installed under __pycache__, and imported from there, not from the source.
 */
class OracleFilesTest {
    @TempDir Path dir;

    @Test
    void theTrustedModulesAreImportedFromTheirInstalledByteCode() throws IOException, InterruptedException {
        String python = python3();
        Path oracle = dir.resolve("support/oracle");
        assumeTrue(Box.availability().ok(), "the byte code is compiled in a box: " + Box.availability().problem());
        OracleFiles.install(oracle, python, Map.of("PATH", Path.of(python).getParent() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
        try (var s = Files.list(oracle.resolve("__pycache__"))) {
            assertThat(s.map(p -> p.getFileName().toString().replaceAll("\\..*", ""))).containsExactlyInAnyOrder(
                    "oracle_wire_graph", "oracle_wire", "oracle_conn", "oracle_attempts", "oracle_env", "oracle_mirror", "oracle_eq", "oracle_lazy", "oracle_arith", "oracle_remote", "oracle_hook", "oracle_launch", "oracle_datawatch", "oracle_patches", "oracle_plugin",
                    "oracle_entry", "oracle_unittest", "oracle_dataclasses", "oracle_excattrs", "oracle_libexc", "oracle_syspath", "oracle_children", "oracle_handed", "oracle_special");
        }
        // a source that no longer compiles still imports: the interpreter took the byte code
        Files.writeString(oracle.resolve("oracle_remote.py"), "\nthis is not python\n", StandardOpenOption.APPEND);
        Process p = new ProcessBuilder(python, "-I", "-B", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import oracle_remote; print(oracle_remote.Remote)",
                oracle.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("oracle_remote.Remote");
    }

    @Test
    void withoutAnInterpreterOnlyTheSourcesAreInstalled() {
        Path oracle = OracleFiles.install(dir.resolve("oracle"), null, Map.of());
        assertThat(oracle.resolve("oracle_plugin.py")).isRegularFile();
        assertThat(oracle.resolve("__pycache__")).doesNotExist();
        assertThat(List.of(OracleFiles.NAMES.toArray())).allMatch(n -> Files.isRegularFile(oracle.resolve((String) n)));
    }

    private static String python3() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assumeTrue(p.waitFor() == 0 && Files.isExecutable(Path.of(out)), "python3 is needed: " + out);
        return out;
    }
}
