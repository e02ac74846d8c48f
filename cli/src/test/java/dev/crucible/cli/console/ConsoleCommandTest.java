package dev.crucible.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible console}'s own bad input: a folder that is not there, a port out of range or taken, an index folder under RUNS. */
class ConsoleCommandTest {

    static int console(StringWriter o, String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(o, true));
        cl.setErr(new PrintWriter(o, true));
        String[] all = new String[args.length + 1];
        all[0] = "console";
        System.arraycopy(args, 0, all, 1, args.length);
        return cl.execute(all);
    }

    @Test
    void aMissingFolderIsExitTwoNamingIt(@TempDir Path tmp) {
        StringWriter o = new StringWriter();
        assertThat(console(o, "--dir", tmp.resolve("nope").toString())).isEqualTo(Main.EXIT_INVALID);
        assertThat(o.toString()).contains("--dir: " + tmp.resolve("nope") + " is not a folder");
    }

    @Test
    void aPortOutOfRangeOrTakenIsRefusedSayingWhich(@TempDir Path tmp) throws Exception {
        StringWriter o = new StringWriter();
        assertThat(console(o, "--dir", tmp.toString(), "--port", "70000")).isEqualTo(Main.EXIT_INVALID);
        assertThat(o.toString()).contains("--port: 70000 is outside 0..65535");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            StringWriter t = new StringWriter();
            Path runs = java.nio.file.Files.createDirectories(tmp.resolve("runs"));
            assertThat(console(t, "--dir", runs.toString(), "--port", String.valueOf(taken.getLocalPort()), "--index-dir",
                    tmp.resolve("index").toString())).isEqualTo(1);
            assertThat(t.toString()).contains("cannot listen on 127.0.0.1:" + taken.getLocalPort(), "--port 0");
        }
    }

    @Test
    void aSearchIndexUnderTheRunsFolderIsRefused(@TempDir Path tmp) {
        StringWriter o = new StringWriter();
        assertThat(console(o, "--dir", tmp.toString(), "--index-dir", tmp.resolve("sub/index").toString())).isEqualTo(Main.EXIT_INVALID);
        assertThat(o.toString()).contains("--index-dir: " + tmp.resolve("sub/index") + " is under --dir", "the agents' folders");
    }
}
