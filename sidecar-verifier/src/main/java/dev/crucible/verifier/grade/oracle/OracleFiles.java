package dev.crucible.verifier.grade.oracle;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    static final List<String> NAMES = List.of("oracle_wire.py", "oracle_audit.py", "oracle_worker.py", "oracle_conn.py", "oracle_remote.py",
            "oracle_hook.py", "oracle_launch.py", "oracle_plugin.py");
    private static final Map<String, byte[]> SOURCES = load();

    private OracleFiles() {}

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

    /** The worker's whole source, as it runs with {@code python -I -B -c}: the wire format, the audit, then the worker. */
    public static String workerSource() {
        return new String(SOURCES.get("oracle_wire.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_audit.py"), java.nio.charset.StandardCharsets.UTF_8) + "\n"
                + new String(SOURCES.get("oracle_worker.py"), java.nio.charset.StandardCharsets.UTF_8);
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
