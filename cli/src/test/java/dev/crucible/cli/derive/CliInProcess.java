package dev.crucible.cli.derive;

import dev.crucible.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the crucible command line in this JVM and keeps what it printed, for the derive tests. */
final class CliInProcess {
    record Result(int exit, String out, String err) {
    }

    private CliInProcess() {}

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }
}
