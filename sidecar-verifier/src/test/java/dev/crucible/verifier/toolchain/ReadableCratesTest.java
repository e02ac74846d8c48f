package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unpacked crates keep their publisher's modes (fnv 1.0.7's lib.rs is 0640): the boxes' user must read them. */
class ReadableCratesTest {
    @TempDir
    Path dir;

    @Test
    void unpackedSourcesBecomeReadableToOthersAndNothingElseChanges() throws Exception {
        Path cargo = dir.resolve("cargo");
        Path crate = Files.createDirectories(cargo.resolve("registry/src/index.crates.io-x/fnv-1.0.7"));
        Path lib = Files.writeString(crate.resolve("lib.rs"), "pub fn f() {}\n");
        Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-r-----"));
        Path script = Files.writeString(crate.resolve("build.sh"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        Path checkout = Files.createDirectories(cargo.resolve("git/checkouts/dep-abc/1234"));
        Files.setPosixFilePermissions(checkout, PosixFilePermissions.fromString("rwx------"));
        Path outside = Files.writeString(dir.resolve("secret"), "x");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(crate.resolve("link"), outside);
        Path index = Files.writeString(Files.createDirectories(cargo.resolve("registry/index")).resolve("config.json"), "{}");
        Files.setPosixFilePermissions(index, PosixFilePermissions.fromString("rw-------"));

        int changed = ReadableCrates.apply(cargo);

        assertThat(changed).isGreaterThanOrEqualTo(3);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lib))).isEqualTo("rw-r--r--");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(script))).isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(checkout))).isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outside))).as("a link is not followed").isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(index))).as("only unpacked sources").isEqualTo("rw-------");
        assertThat(ReadableCrates.apply(cargo)).as("nothing left to change").isZero();
        assertThat(ReadableCrates.apply(dir.resolve("no-cargo"))).isZero();
    }
}
