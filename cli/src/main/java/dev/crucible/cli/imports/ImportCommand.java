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
@Command(name = "import", mixinStandardHelpOptions = true, subcommands = {ImportCommand.Harbor.class, ImportCommand.SweBench.class},
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
    /** {@code crucible import swebench INSTANCE.json --repo CLONE}. */
    @Command(name = "swebench", mixinStandardHelpOptions = true,
            description = {"A SWE-bench instance (instance_id, repo, base_commit, problem_statement, test_patch, patch, FAIL_TO_PASS, "
                    + "PASS_TO_PASS, version) becomes an RLEnvironment folder: environment.yaml (workspace: the repository at base_commit), "
                    + "hidden-tests/ (the files of test_patch as it leaves them, seen only at grading) and reference.patch (the gold patch).",
                "Setup comes from the swebench package's MAP_REPO_VERSION_TO_SPECS[repo][version] where --python can import a "
                    + "release that has it (4.x; 5.x dropped it), else from `crucible derive` at base_commit; the output says which and why. "
                    + "Grading runs pytest on the listed tests, binary on FAIL_TO_PASS and PASS_TO_PASS."})
    static final class SweBench implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "INSTANCE.json", description = "One instance as JSON (an object, or a list holding one).")
        Path instance;

        @Option(names = "--repo", required = true, paramLabel = "DIR",
                description = "A local git clone of the instance's repo holding base_commit (no network is used).")
        Path repo;

        @Option(names = "--job", paramLabel = "JOB",
                description = "The CI job whose setup to derive (as crucible derive --job), where the first testing job is not the one; "
                        + "setup then comes from derive, not from swebench's specifications.")
        String job;

        @Option(names = "--python", paramLabel = "PYTHON",
                description = "The Python that imports the swebench package, to read its install specifications. Default: python3.")
        String python;

        @Option(names = {"-o", "--out"}, paramLabel = "DIR", description = "Folder to write. Default: ./crucible-import/NAME.")
        Path out;

        @Override
        public Integer call() {
            var err = spec.commandLine().getErr();
            try {
                SweBenchInstance inst = SweBenchInstance.read(instance);
                Path target = out != null ? out : Path.of("crucible-import", inst.name());
                SweBenchSpecs.Lookup specs = job != null ? SweBenchSpecs.Lookup.none("--job given: setup from crucible derive")
                        : SweBenchSpecs.lookup(python != null ? python : "python3", python != null, inst.repo(), inst.version());
                List<String> notes = SweBenchFolder.write(inst, repo, job, specs, target);
                var o = spec.commandLine().getOut();
                notes.forEach(n -> o.println("note: " + n));
                o.println("imported " + inst.instanceId() + " -> " + target.resolve(SweBenchFolder.MANIFEST));
                if (inst.patch() != null) {
                    o.println("check it: crucible run -f " + target.resolve(SweBenchFolder.MANIFEST) + " --agent-cmd 'git apply "
                            + target.toAbsolutePath().normalize().resolve(SweBenchFolder.REFERENCE) + "'   (reward 1 expected)");
                }
                return 0;
            } catch (HarborTask.InvalidTask e) {
                err.println("crucible import swebench: " + e.getMessage());
                return Main.EXIT_INVALID;
            } catch (IOException e) {
                err.println("crucible import swebench: " + e);
                return 1;
            }
        }
    }
}
