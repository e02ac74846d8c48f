package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The test tier's grading sandbox (as {@code support.SandboxedGrading}: bubblewrap, no network, the
 * grading tree read-only) plus one writable build cache shared by the tests, so go compiles its
 * standard library once per machine rather than once per graded run.
 */
final class CacheSandbox implements Executor {
    static final Path CACHE = Path.of(System.getProperty("user.home"), ".cache", "crucible-test-runners");
    private final Executor inner = new LocalExecutor();

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        Path cwd = req.cwd().toAbsolutePath().normalize();
        String name = cwd.getFileName().toString();
        if (!name.startsWith("grade-")) return inner.run(req, onStart);
        Path base = cwd.getParent();
        try {
            Files.createDirectories(CACHE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Path support = base.resolve("support-" + name.substring("grade-".length()));
        List<String> argv = new ArrayList<>(List.of("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--bind", base.toString(), base.toString(), "--ro-bind", cwd.toString(), cwd.toString(),
                "--bind", CACHE.toString(), CACHE.toString()));
        if (Files.isDirectory(support)) argv.addAll(List.of("--ro-bind", support.toString(), support.toString()));
        argv.addAll(List.of("--unshare-all", "--die-with-parent", "--chdir", cwd.toString(), "--"));
        argv.addAll(req.argv());
        return inner.run(req.withArgv(argv), onStart);
    }
}
