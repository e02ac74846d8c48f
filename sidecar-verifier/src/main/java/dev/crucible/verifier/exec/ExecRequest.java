package dev.crucible.verifier.exec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One command to run. {@code argv} runs as given; {@code clearEnv} starts from an empty environment
 * (grading must not inherit variables such as PYTHONPATH that the agent could have influenced).
 * {@code resultChannel}, when set, is a FIFO the grader reads: the executor opens it for writing as
 * file descriptor 3 of the command, outermost (before any sandbox wrapper), so the command inherits it.
 * {@code writableExcept}, for a command in a grading tree: null keeps the tree read-only (pytest, whose byte
 * code a writable tree would let the code under test forge); otherwise the tree is writable but for these
 * files, the grader's own, which stay read-only (a build that writes {@code dist/}, a test that builds a plugin
 * beside itself).
 */
public record ExecRequest(List<String> argv, Path cwd, Map<String, String> env, boolean clearEnv,
                          Duration timeout, int maxOutputBytes, String stdin, boolean mergeStderr, Path resultChannel,
                          List<Path> writableExcept) {

    public static final int DEFAULT_MAX_OUTPUT = 64 * 1024;

    public ExecRequest {
        argv = List.copyOf(argv);
        env = env == null ? Map.of() : Map.copyOf(env);
        writableExcept = writableExcept == null ? null : List.copyOf(writableExcept);
    }

    public ExecRequest(List<String> argv, Path cwd, Map<String, String> env, boolean clearEnv,
                       Duration timeout, int maxOutputBytes, String stdin, boolean mergeStderr, Path resultChannel) {
        this(argv, cwd, env, clearEnv, timeout, maxOutputBytes, stdin, mergeStderr, resultChannel, null);
    }

    public ExecRequest(List<String> argv, Path cwd, Map<String, String> env, boolean clearEnv,
                       Duration timeout, int maxOutputBytes, String stdin, boolean mergeStderr) {
        this(argv, cwd, env, clearEnv, timeout, maxOutputBytes, stdin, mergeStderr, null);
    }

    public static ExecRequest shell(String command, Path cwd, Duration timeout) {
        return new ExecRequest(List.of("/bin/sh", "-c", command), cwd, Map.of(), false, timeout,
                DEFAULT_MAX_OUTPUT, null, true);
    }

    public ExecRequest withEnv(Map<String, String> newEnv, boolean clear) {
        return new ExecRequest(argv, cwd, newEnv, clear, timeout, maxOutputBytes, stdin, mergeStderr, resultChannel, writableExcept);
    }

    public ExecRequest withStdin(String in, boolean merge) {
        return new ExecRequest(argv, cwd, env, clearEnv, timeout, maxOutputBytes, in, merge, resultChannel, writableExcept);
    }

    public ExecRequest withArgv(List<String> newArgv) {
        return new ExecRequest(newArgv, cwd, env, clearEnv, timeout, maxOutputBytes, stdin, mergeStderr, resultChannel, writableExcept);
    }

    public ExecRequest withResultChannel(Path fifo) {
        return new ExecRequest(argv, cwd, env, clearEnv, timeout, maxOutputBytes, stdin, mergeStderr, fifo, writableExcept);
    }

    /** This request with its grading tree writable but for {@code graderFiles} (see the class comment). */
    public ExecRequest withWritableTree(List<Path> graderFiles) {
        return new ExecRequest(argv, cwd, env, clearEnv, timeout, maxOutputBytes, stdin, mergeStderr, resultChannel, graderFiles);
    }
}
