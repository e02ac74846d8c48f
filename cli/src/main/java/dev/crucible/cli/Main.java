package dev.crucible.cli;

import dev.crucible.cli.demo.DemoCommand;
import dev.crucible.cli.derive.DeriveCommand;
import dev.crucible.cli.probe.ProbeCommand;
import dev.crucible.cli.run.RunCommand;
import dev.crucible.cli.snapshot.RestoreCommand;
import dev.crucible.cli.snapshot.SnapshotCommand;
import dev.crucible.cli.verify.VerifyCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code crucible} command: one entry point for validation, local runs, snapshots and probes. */
@Command(name = "crucible", mixinStandardHelpOptions = true, version = "crucible 0.1.0",
        description = "Run and check RL environments for coding agents, locally or on Kubernetes.",
        subcommands = {DemoCommand.class, RunCommand.class, ValidateCommand.class, VerifyCommand.class,
            DeriveCommand.class, SnapshotCommand.class, RestoreCommand.class, ProbeCommand.class, dev.crucible.cli.integrity.IntegrityCommand.class, dev.crucible.cli.trace.TraceCommand.class,
            dev.crucible.cli.console.ConsoleCommand.class, dev.crucible.cli.imports.ImportCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    /** Exit status for invalid input (bad manifest, bad flag): distinct from a failed run. */
    public static final int EXIT_INVALID = 2;

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println("crucible: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return EXIT_INVALID;
        });
        return cl;
    }

    public static void main(String[] args) {
        Integer underUtf8 = Utf8FileNames.reexec(args); // file names are read in the locale's charset: UTF-8, or none outside ASCII
        if (underUtf8 != null) System.exit(underUtf8);
        Integer inNamespace = dev.crucible.cli.run.MountNamespace.reexec(args); // without root: a namespace whose tmpfs caps the disk
        if (inNamespace != null) System.exit(inNamespace);
        configureLogging();
        Integer plainValidate = ValidateCommand.plain(args, new java.io.PrintWriter(System.out, true),
                new java.io.PrintWriter(System.err, true));
        System.exit(plainValidate != null ? plainValidate : commandLine().execute(args));
    }

    /** The CLI's logging.properties, unless the user named a file of their own. */
    static void configureLogging() {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        try (var in = Main.class.getResourceAsStream("logging.properties")) {
            if (in != null) {
                java.util.logging.LogManager.getLogManager().readConfiguration(in);
            }
        } catch (java.io.IOException e) {
            System.err.println("crucible: default logging set-up not read: " + e.getMessage());
        }
    }
}
