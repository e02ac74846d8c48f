package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workspace with 512 protected files at long paths (a Rust workspace's {@code crates/NAME/tests/...}; meilisearch's
 * failed with "Argument list too long" when the launcher's script held every bind): the box starts, each file is
 * readable and none writable. Real bwrap; as root the files, in a 0700 temporary folder, are also staged by mount.
 */
class ManyReadOnlyBindsTest {
    @TempDir Path tmp;

    @Test
    void fiveHundredTwelveLongProtectedPathsStartTheBox() throws Exception {
        assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem());
        Path ws = Files.createDirectories(tmp.resolve("attempt-0/workspace"));
        String deep = "crates/index-scheduler-with-a-rather-long-crate-name/tests/integration-suite-for-the-dump-and-snapshot-features/";
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < 512; i++) {
            Path f = ws.resolve(deep + "case_number_" + i + "_with_a_descriptive_name_as_real_suites_have.rs");
            Files.createDirectories(f.getParent());
            files.add(Files.writeString(f, "// case " + i + "\n"));
        }
        long scriptBytes = files.stream().mapToLong(f -> 2L * f.toString().length()).sum();
        assertThat(scriptBytes).as("the binds alone exceed one argument's 128 KiB").isGreaterThan(128 * 1024);
        try (Box box = Box.open(BoxSpec.of("many-binds", BoxLimits.defaults()).withWritable(ws).withReadOnly(files))) {
            String last = ws.relativize(files.get(511)).toString();
            BoxTest.Run r = BoxTest.run(box, ws, "cat '" + last + "'; echo x >> '" + last + "' 2>/dev/null && echo WROTE; echo end", 60);
            assertThat(r.code()).as(r.out()).isZero();
            assertThat(r.out()).contains("// case 511", "end").doesNotContain("WROTE");
        }
    }
}
