package dev.crucible.cli.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.criu.CriuBinary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SnapshotBenchCommandTest {

    @Test
    void parsesSizesAndDefaults() {
        CommandLine cl = new CommandLine(new SnapshotCommand());
        CommandLine.ParseResult r = cl.parseArgs("bench", "--sizes", "256,1024,4096");
        SnapshotBenchCommand bench = (SnapshotBenchCommand) r.subcommand().commandSpec().userObject();
        assertThat(bench.sizes).containsExactly(256L, 1024L, 4096L);
        assertThat(bench.preDumps).isEqualTo(2);
        assertThat(cl.getSubcommands()).containsKeys("bench", "take", "restore", "list");
    }

    @Test
    void printsOneLinePerSizeWithTheFieldsTheIssueNames(@TempDir Path tmp) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for CRIU");
        assumeTrue(CriuBinary.find().isPresent(), CriuBinary.MISSING);
        SnapshotBenchCommand bench = new SnapshotBenchCommand();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        bench.out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        bench.sizes = List.of(32L);
        bench.preDumps = 1;
        bench.dirtyKib = 64;
        bench.store = tmp;
        bench.noDropCaches = true;
        assertThat(bench.call()).isZero();
        String line = buf.toString(StandardCharsets.UTF_8).trim();
        assertThat(line).matches("size_mib=32 freeze_ms=\\d+ dump_mib_s=\\d+ restore_mib_s=\\d+ disk_mib_s=\\d+ .*");
    }
}
