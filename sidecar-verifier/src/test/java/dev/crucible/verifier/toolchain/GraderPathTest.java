package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wrapper that sets PYTHONPATH itself (fastapi's {@code export PYTHONPATH=./docs_src}) must not drop the
 * grader's folders: a real venv with the {@code .pth} file, a real interpreter started the way such a wrapper
 * starts it.
 */
class GraderPathTest {
    @TempDir
    Path dir;

    @Test
    void theGradersFoldersStayImportableWhenAWrapperReplacesPythonPath() throws Exception {
        Path venv = dir.resolve("venv");
        assertThat(run(List.of("python3", "-m", "venv", venv.toString()), Map.of()).code).isZero();
        Path python = venv.resolve("bin/python3");
        Out sites = run(List.of(python.toString(), "-I", "-c", "import site; print('\\n'.join(site.getsitepackages()))"), Map.of());
        List<Path> own = sites.text.lines().map(String::strip).filter(s -> s.startsWith(venv.toString())).map(Path::of).toList();
        assertThat(own).isNotEmpty();
        GraderPath.install(own);

        Path support = Files.createDirectories(dir.resolve("support"));
        Files.writeString(support.resolve("grader_probe.py"), "WHERE = 'support'\n");
        Path project = Files.createDirectories(dir.resolve("project/docs_src"));
        // the project's own folder stays first: the grader's come after everything else on the path
        String wrapper = "export PYTHONPATH=./docs_src\n" + python + " -c 'import grader_probe, sys; print(grader_probe.WHERE, sys.path[-1])'\n";
        Files.writeString(project.getParent().resolve("test.sh"), wrapper);

        Out with = run(List.of("bash", "test.sh"), Map.of("PYTHONPATH", support.toString(), GraderPath.VAR, support.toString()), project.getParent());
        assertThat(with.code).as(with.text).isZero();
        assertThat(with.text).contains("support " + support);

        Out without = run(List.of("bash", "test.sh"), Map.of("PYTHONPATH", support.toString()), project.getParent());
        assertThat(without.code).as("the wrapper's PYTHONPATH alone hides the grader's folder").isNotZero();
        assertThat(without.text).contains("No module named 'grader_probe'");
    }

    private record Out(int code, String text) {}

    private Out run(List<String> argv, Map<String, String> env) throws IOException, InterruptedException {
        return run(argv, env, dir);
    }

    private static Out run(List<String> argv, Map<String, String> env, Path cwd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().remove("PYTHONPATH");
        pb.environment().putAll(env);
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Out(p.exitValue(), text);
    }
}
