package dev.crucible.verifier.support;

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
 * Runs grading commands (cwd {@code gradeBase/grade-N}) confined by bubblewrap, so exploit code under
 * test never runs bare on the host: no network, own PID namespace, read-only filesystem except the
 * grading base, and the grading tree and support directory read-only (the grading sandbox's contract).
 * Inherited descriptors, the result channel on fd 3 included, pass through. Other commands run as usual.
 */
public final class SandboxedGrading implements Executor {
    private final Executor inner = new LocalExecutor();

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        Path cwd = req.cwd().toAbsolutePath().normalize();
        String name = cwd.getFileName().toString();
        if (!name.startsWith("grade-")) return inner.run(req, onStart);
        Path base = cwd.getParent();
        Path support = base.resolve("support-" + name.substring("grade-".length()));
        List<String> argv = new ArrayList<>(List.of("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--bind", base.toString(), base.toString(), "--ro-bind", cwd.toString(), cwd.toString()));
        if (Files.isDirectory(support)) argv.addAll(List.of("--ro-bind", support.toString(), support.toString()));
        argv.addAll(List.of("--unshare-all", "--die-with-parent", "--chdir", cwd.toString(), "--"));
        argv.addAll(req.argv());
        return inner.run(req.withArgv(argv), onStart);
    }
}
