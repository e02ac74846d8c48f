package dev.crucible.cli.imports;

import dev.crucible.cli.Main;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code crucible import FORMAT SOURCE}: a task kept in another tool's format becomes an RLEnvironment folder. */
@Command(name = "import", mixinStandardHelpOptions = true, subcommands = ImportCommand.Harbor.class,
        description = "Turn a task in another tool's format into an RLEnvironment folder that `crucible run` runs.")
public final class ImportCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code crucible import harbor TASK_DIR}. */
    @Command(name = "harbor", mixinStandardHelpOptions = true,
            description = {"A Harbor / terminal-bench task folder (task.toml, instruction.md, environment/, tests/, solution/) "
                    + "becomes an RLEnvironment folder: environment.yaml, workspace/ (what the Dockerfile copies into WORKDIR), "
                    + "hidden-tests/ (tests/, seen only at grading), solution/ (the reference solution) and environment/ (the Dockerfile).",
                "Grading runs the task's pytest files per test (binary reward: every test must pass), as its test.sh does; "
                    + "absolute WORKDIR and /tests paths in tests and solution are rewritten relative to the workspace, and listed."})
    static final class Harbor implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "TASK_DIR", description = "The Harbor task folder.")
        Path taskDir;

        @Option(names = {"-o", "--out"}, paramLabel = "DIR", description = "Folder to write. Default: ./crucible-import/NAME.")
        Path out;

        @Override
        public Integer call() {
            var err = spec.commandLine().getErr();
            try {
                HarborTask task = HarborTask.read(taskDir);
                Path target = out != null ? out : Path.of("crucible-import", task.name());
                List<String> notes = HarborFolder.write(task, target);
                var o = spec.commandLine().getOut();
                notes.forEach(n -> o.println("note: " + n));
                o.println("imported " + task.name() + " -> " + target.resolve(HarborFolder.MANIFEST));
                if (task.solveScript() != null) {
                    o.println("check it: crucible run -f " + target.resolve(HarborFolder.MANIFEST) + " --agent-cmd 'bash "
                            + target.toAbsolutePath().normalize().resolve("solution/solve.sh") + "'   (reward 1 expected)");
                }
                return 0;
            } catch (HarborTask.InvalidTask e) {
                err.println("crucible import harbor: " + e.getMessage());
                return Main.EXIT_INVALID;
            } catch (IOException e) {
                err.println("crucible import harbor: " + e);
                return 1;
            }
        }
    }
}
