package dev.crucible.cli.probe;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code crucible probe}: train, score, serve and benchmark PROPEL activation probes, and export the
 * reference model they run on. Works as a subcommand of the root command and standalone ({@link #main}).
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Train, score, serve and benchmark solve-rate probes (PROPEL); export reference models.",
        subcommands = {ProbeTrainCommand.class, ProbeScoreCommand.class, ProbeServeCommand.class,
                ProbeBenchCommand.class, ProbeExportCommand.class, CommandLine.HelpCommand.class})
public final class ProbeCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ProbeCommand()).execute(args));
    }
}
