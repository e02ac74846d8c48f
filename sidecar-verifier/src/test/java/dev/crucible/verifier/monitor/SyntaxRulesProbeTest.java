package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interpreter probe is remembered per JVM only once the interpreter answered: one failed probe must
 * not leave the syntax rules off (text rules only) for every later episode of that JVM.
 */
class SyntaxRulesProbeTest {
    @Test
    void aFailedProbeIsAskedAgain(@TempDir Path dir) throws Exception {
        Path ready = dir.resolve("ready");
        Path py = dir.resolve("py"); // a path of its own, so no other test has probed it already
        Files.writeString(py, "#!/bin/sh\n[ -e '" + ready + "' ] || exit 3\nexec python3 \"$@\"\n");
        Files.setPosixFilePermissions(py, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThat(SyntaxRules.find(List.of(py.toString()), null)).as("the interpreter fails its first probe").isNull();
        Files.writeString(ready, "");
        assertThat(SyntaxRules.find(List.of(py.toString()), null)).as("asked again, it works").isNotNull();
    }
}
