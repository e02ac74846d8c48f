package dev.crucible.cli.integrity;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code crucible integrity}: checks that rewards cannot be forged. */
@Command(name = "integrity", mixinStandardHelpOptions = true,
        description = "Check grading against reward hacks: run an exploit/honest corpus through the local runtime.",
        subcommands = {IntegrityBenchCommand.class, CommandLine.HelpCommand.class})
public final class IntegrityCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
