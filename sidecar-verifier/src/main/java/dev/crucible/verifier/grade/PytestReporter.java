package dev.crucible.verifier.grade;

import dev.crucible.verifier.exec.GradingPhases;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes the grader's pytest reporter ({@code crucible_reporter.py}, joined from the {@code reporter/} resources) and its
 * configuration (grading root, grader files) into a support directory, fresh before each run.
 * The support directory is read-only inside the grading sandbox.
 *
 * <p>Grading runs with {@code -B} from a fresh directory, so Python would compile the reporter on
 * every run (about 10 % of a small suite's run time). It is compiled once per interpreter instead,
 * into an unchecked-hash .pyc (valid whatever the source's mtime), and that file is written beside
 * the source each time.
 */
public final class PytestReporter {
    public static final String MODULE = "crucible_reporter";
    /** Environment variable carrying the channel nonce; the reporter removes it at import. */
    public static final String NONCE_VAR = "CRUCIBLE_REPORT_NONCE";
    /**
     * For a command the grader does not start pytest in itself (a wrapper: {@code make test}, a script): the variable names
     * a file that holds the nonce, which the reporter reads and deletes at import (blind round 12, x25). The wrapper's
     * environment, and so every other process it starts and their {@code /proc/PID/environ}, never holds the nonce; only
     * the pytest process that loads the reporter does, in memory. See {@link #nonceThroughFile}.
     */
    public static final String NONCE_FILE_VAR = "CRUCIBLE_REPORT_NONCE_FILE";
    /**
     * The reporter's source parts (resources under {@code reporter/}), in order. They are joined into the one module
     * Python loads: the reporter tells its own frames by its file and seals its own module's dictionary, so at run
     * time it stays one file; the parts only keep each source file readable.
     */
    static final List<String> PARTS = List.of("reporter_channel.py", "reporter_frames.py", "reporter_audit.py", "reporter_handover.py", "reporter_signals.py",
            "reporter_internals.py", "reporter_plugin.py");
    // (before SOURCE: static fields initialise in order)
    private static final byte[] SOURCE = load();
    private static final Map<String, Optional<Compiled>> COMPILED = new ConcurrentHashMap<>();
    private static final String COMPILE = String.join("; ",
            "import importlib.util, py_compile, sys",
            "out = importlib.util.cache_from_source(sys.argv[1])",
            "py_compile.compile(sys.argv[1], cfile=out, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)",
            "print(out)");

    /** The reporter's byte code for one interpreter: its file name under __pycache__ and contents. */
    private record Compiled(String fileName, byte[] bytes) {}

    private PytestReporter() {}

    /** Writes the reporter, its byte code for {@code python} (compiled through {@code executor} the first time) and its configuration. */
    public static void install(Path supportDir, Path root, Map<String, GraderFiles.Entry> graderFiles, String python, Executor executor) {
        install(supportDir, root, graderFiles, null, python, executor);
    }

    /** As above, with the tree's sources that differ from the task's tree ({@code null}: unknown, as before). */
    public static void install(Path supportDir, Path root, Map<String, GraderFiles.Entry> graderFiles,
            dev.crucible.verifier.pristine.TaskSources.Changes task, String python, Executor executor) {
        long t0 = System.nanoTime();
        install(supportDir, root, graderFiles, task);
        COMPILED.computeIfAbsent(python, p -> compile(p, supportDir, executor)).ifPresent(c -> {
            try {
                Path cache = Files.createDirectories(supportDir.resolve("__pycache__"));
                Files.write(cache.resolve(c.fileName()), c.bytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        GradingPhases.since("setup", t0);
    }

    private static Optional<Compiled> compile(String python, Path supportDir, Executor executor) {
        Path src = supportDir.resolve(MODULE + ".py");
        ExecResult r = executor.run(new ExecRequest(List.of(python, "-I", "-B", "-c", COMPILE, src.toString()), supportDir, Map.of(), true,
                Duration.ofSeconds(60), 4096, null, false));
        if (!r.ok()) return Optional.empty(); // the source is compiled on each run instead
        try {
            Path out = Path.of(r.stdout().strip());
            return Optional.of(new Compiled(out.getFileName().toString(), Files.readAllBytes(out)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public static void install(Path supportDir, Path root, Map<String, GraderFiles.Entry> graderFiles) {
        install(supportDir, root, graderFiles, null);
    }

    /**
     * {@code task} (null: unknown) goes to the reporter as {@code task: {changed: {rel: the task's text}, added: [rel]}}:
     * a grader file a test hands over is read as the test asked only through code of the task's own (reporter_handover.py).
     */
    public static void install(Path supportDir, Path root, Map<String, GraderFiles.Entry> graderFiles, dev.crucible.verifier.pristine.TaskSources.Changes task) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("root", root.toAbsolutePath().normalize().toString());
        Map<String, Object> files = new LinkedHashMap<>();
        graderFiles.forEach((rel, e) -> files.put(rel, Map.of("sha256", e.sha256(), "test", e.test(), "hidden", e.hidden())));
        cfg.put("files", files);
        if (task != null) cfg.put("task", Map.of("changed", task.changed(), "added", task.added()));
        try {
            Files.createDirectories(supportDir);
            Files.write(supportDir.resolve(MODULE + ".py"), SOURCE);
            Files.write(supportDir.resolve(MODULE + ".json"), new ObjectMapper().writeValueAsBytes(cfg));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Puts the channel's nonce in a fresh file under {@code resultsDir} (a folder of its own the grading box may write, so
     * the reporter can delete it) and its path in {@code env}, in place of the nonce itself; returns the file, which the
     * caller deletes after the run (a run in which no pytest loaded the reporter leaves it).
     */
    static Path nonceThroughFile(Map<String, String> env, Path resultsDir, String nonce) {
        try {
            Path dir = Files.createDirectory(Files.createDirectories(resultsDir).resolve("channel-" + System.nanoTime()));
            Path f = dir.resolve("nonce-" + java.util.UUID.randomUUID());
            Files.writeString(f, nonce);
            Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx")); // the box's uid deletes it
            env.remove(NONCE_VAR);
            env.put(NONCE_FILE_VAR, f.toString());
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException("writing the result channel's nonce file under " + resultsDir, e);
        }
    }

    /** Removes what {@link #nonceThroughFile} left (the reporter deletes the file when it loads). */
    static void removeNonceFile(Path f) {
        try {
            Files.deleteIfExists(f);
            Files.deleteIfExists(f.getParent());
        } catch (IOException e) {
            // a folder the run filled: it goes with the results folder
        }
    }

    private static byte[] load() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String part : PARTS) {
            try (InputStream in = PytestReporter.class.getResourceAsStream("reporter/" + part)) {
                if (in == null) throw new IllegalStateException("resource reporter/" + part + " missing from the sidecar-verifier jar");
                in.transferTo(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.toByteArray();
    }
}
