package dev.crucible.verifier.grade.oracle;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.BoxSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The isolated oracle's Python files (resources beside this class), written into a folder the grading
 * process reads: {@code oracle_plugin} (the trusted pytest plugin: import hook, stand-in modules, remote
 * references, per-test record) and what it loads, and {@code oracle_worker} + {@code oracle_wire}, the
 * untrusted worker's source. Nothing in them is secret: the worker may read its own code.
 */
public final class OracleFiles {
    /** The plugin's module name, for {@code -p} or an import before pytest starts. */
    public static final String PLUGIN = "oracle_plugin";
    /** Environment variable naming the configuration JSON the plugin reads at import. */
    public static final String CONFIG_VAR = "CRUCIBLE_ORACLE_CONFIG";
    static final List<String> NAMES = List.of("oracle_wire_graph.py", "oracle_wire.py", "oracle_audit.py", "oracle_audit_calls.py", "oracle_audit_probes.py", "oracle_audit_sandbox.py", "oracle_excattrs.py", "oracle_syspath.py", "oracle_worker.py", "oracle_conn.py", "oracle_attempts.py", "oracle_env.py", "oracle_mirror.py", "oracle_eq.py", "oracle_lazy.py", "oracle_arith.py", "oracle_remote.py", "oracle_dataclasses.py",
            "oracle_hook.py", "oracle_libexc.py", "oracle_launch.py", "oracle_datawatch.py", "oracle_patches.py", "oracle_plugin.py", "oracle_entry.py", "oracle_unittest.py",
            "oracle_children.py", "oracle_child_relay.py", "oracle_child_box.py", "oracle_handed.py", "oracle_special.py");
    private static final Map<String, byte[]> SOURCES = load();

    /**
     * Byte code of the trusted side's modules per interpreter, made once per JVM: compiling them took the trusted
     * process tens of ms on each run (it runs with -B, so nothing is cached), after its start, while grading waits.
     * Unchecked-hash files, as the reporter's ({@code PytestReporter}): written beside sources of the same bytes.
     */
    private static final Map<String, Optional<Map<String, byte[]>>> COMPILED = new ConcurrentHashMap<>();
    // argv: pairs of source and where its byte code goes; prints the interpreter's cache tag (cpython-311), which names the files
    private static final String COMPILE = String.join("; ",
            "import py_compile, sys",
            "[py_compile.compile(s, cfile=c, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)"
                    + " for s, c in zip(sys.argv[1::2], sys.argv[2::2])]",
            "print(sys.implementation.cache_tag)");

    private OracleFiles() {}

    /**
     * {@link #install(Path)}, with the trusted side's byte code under {@code dir/__pycache__}, compiled the first time by
     * {@code python} in a box of its own (it sees the sources and a fresh scratch folder; never the grading folders,
     * whose ownership a grading box's command takes over); without it where that failed or no box can be made here
     * (the sources are then compiled on each run, as before). {@code env}: the grading environment (its PATH names the
     * toolchain the box shows).
     */
    public static Path install(Path dir, String python, Map<String, String> env) {
        install(dir);
        if (python == null || !Box.availability().ok()) return dir;
        COMPILED.computeIfAbsent(python, p -> compile(p, dir, env)).ifPresent(m -> {
            try {
                Path cache = Files.createDirectories(dir.resolve("__pycache__"));
                for (Map.Entry<String, byte[]> e : m.entrySet()) Files.write(cache.resolve(e.getKey()), e.getValue());
            } catch (IOException e) {
                // only a speed-up: the sources are there (a full volume, the agent's doing, must not fail grading)
                deleteQuietly(dir.resolve("__pycache__"));
            }
        });
        return dir;
    }

    private static Optional<Map<String, byte[]>> compile(String python, Path dir, Map<String, String> env) {
        Path scratch = null;
        try {
            scratch = Files.createTempDirectory("crucible-oracle-pyc-");
            // -S: no site-packages and no .pth hook runs in the process whose output later gradings import
            List<String> argv = new ArrayList<>(List.of(python, "-I", "-B", "-S", "-c", COMPILE));
            Map<String, Path> outs = new LinkedHashMap<>();
            for (String n : NAMES) {
                // the worker's and a test's process's box end run with -c; the relay runs as a script (never cached)
                if (n.equals("oracle_worker.py") || n.startsWith("oracle_audit") || n.startsWith("oracle_child_")) continue;
                outs.put(n, scratch.resolve(n + "c"));
                argv.add(dir.resolve(n).toString());
                argv.add(outs.get(n).toString());
            }
            Map<String, String> penv = Map.of("PATH", env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
            ExecResult r;
            try (Box box = Box.open(BoxSpec.of("oracle-pyc", BoxLimits.defaults()).withWritable(scratch).withReadOnly(List.of(dir)).withHome(null))) {
                r = new LocalExecutor().run(new ExecRequest(box.wrap(argv, scratch, penv), scratch, penv, true, Duration.ofSeconds(60), 4096, null, false),
                        box::attach);
            }
            String tag = r.stdout().strip();
            // the interpreter's cache tag names the files (cpython-311); "None": it caches no byte code
            if (!r.ok() || !tag.matches("[A-Za-z0-9_.-]{1,40}") || tag.equals("None")) return Optional.empty();
            Map<String, byte[]> out = new LinkedHashMap<>();
            for (Map.Entry<String, Path> e : outs.entrySet()) out.put(e.getKey().replace(".py", "." + tag + ".pyc"), Files.readAllBytes(e.getValue()));
            return Optional.of(Map.copyOf(out));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        } finally {
            if (scratch != null) deleteTree(scratch);
        }
    }

    private static void deleteTree(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temp folder: the OS cleans up
        }
    }

    private static void deleteQuietly(Path cache) {
        try (var s = Files.list(cache)) {
            for (Path f : s.toList()) Files.deleteIfExists(f); // a partial byte code file would be imported as it is
        } catch (IOException ignored) {
            // nothing there, or a folder the next install overwrites
        }
    }

    /** Writes every file into {@code dir} (created if missing); returns {@code dir}. */
    public static Path install(Path dir) {
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> e : SOURCES.entrySet()) Files.write(dir.resolve(e.getKey()), e.getValue());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("writing the isolated oracle's files into " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The worker's whole source, as it runs with {@code python -I -B -c}: the wire format (its graph form first), the audit, then the worker. */
    public static String workerSource() {
        return new String(SOURCES.get("oracle_wire_graph.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_wire.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_audit.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_audit_calls.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_audit_probes.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_audit_sandbox.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_excattrs.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_syspath.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_worker.py"), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * The box end of a process a graded test starts ({@code oracle_child_box.py}, run with {@code python -I -B -c}): it runs
     * the program in a worker's box and relays its streams, signals and exit status to the grading box.
     */
    public static String childSource() {
        return new String(SOURCES.get("oracle_child_box.py"), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> load() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String n : NAMES) {
            try (InputStream in = OracleFiles.class.getResourceAsStream(n)) {
                if (in == null) throw new IllegalStateException("resource " + n + " missing from the sidecar-verifier jar");
                out.put(n, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Map.copyOf(out);
    }
}
