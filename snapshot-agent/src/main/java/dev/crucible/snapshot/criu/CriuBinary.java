package dev.crucible.snapshot.criu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The criu executable and what it can do here. Looked up in this order: system property
 * {@code crucible.criu}, env {@code CRUCIBLE_CRIU}, {@code ~/.cache/crucible/bin/criu} (where
 * e2e/scripts/install-criu.sh puts it), then {@code criu} on PATH. Only CRIU >= 4.1 is accepted:
 * older ones fail on kernels >= 6.x with "Unexpected rt vDSO area bounds".
 */
public final class CriuBinary {

    public static final String MISSING = "CRIU >= 4.1 not found: run e2e/scripts/install-criu.sh"
            + " (or set CRUCIBLE_CRIU / -Dcrucible.criu to a criu >= 4.1)";

    private static final Pattern VERSION = Pattern.compile("Version:\\s*(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    private final Path path;
    private final String version;
    private volatile Boolean memTracking;

    private CriuBinary(Path path, String version) {
        this.path = path;
        this.version = version;
    }

    public Path path() {
        return path;
    }

    public String version() {
        return version;
    }

    /** A usable CRIU (>= 4.1, runs), or empty. */
    public static Optional<CriuBinary> find() {
        for (Path candidate : candidates()) {
            if (Files.isExecutable(candidate)) {
                String out = run(List.of(candidate.toString(), "--version"), 10);
                Matcher m = out == null ? null : VERSION.matcher(out);
                if (m != null && m.find()) {
                    int major = Integer.parseInt(m.group(1));
                    int minor = Integer.parseInt(m.group(2));
                    if (major > 4 || (major == 4 && minor >= 1)) {
                        return Optional.of(new CriuBinary(candidate, m.group(0).replace("Version:", "").trim()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    public static CriuBinary require() {
        return find().orElseThrow(() -> new CriuException(MISSING));
    }

    static List<Path> candidates() {
        List<Path> out = new ArrayList<>();
        String prop = System.getProperty("crucible.criu");
        if (prop != null && !prop.isBlank()) {
            out.add(Path.of(prop));
        }
        String env = System.getenv("CRUCIBLE_CRIU");
        if (env != null && !env.isBlank()) {
            out.add(Path.of(env));
        }
        out.add(Path.of(System.getProperty("user.home"), ".cache", "crucible", "bin", "criu"));
        String pathEnv = System.getenv("PATH");
        if (pathEnv != null) {
            for (String dir : pathEnv.split(":")) {
                if (!dir.isEmpty()) {
                    out.add(Path.of(dir, "criu"));
                }
            }
        }
        return out;
    }

    /**
     * Whether the kernel tracks dirty pages (CONFIG_MEM_SOFT_DIRTY): without it pre-dumps cannot
     * be incremental, so the final dump copies all memory and the freeze window grows with it.
     */
    public boolean memoryTracking() {
        if (memTracking == null) {
            String out = run(List.of(path.toString(), "check", "--feature", "mem_dirty_track"), 30);
            memTracking = out != null; // exit status 0 means supported
        }
        return memTracking;
    }

    /** Runs a short command; returns stdout+stderr, or null when it failed to run or exited non-zero. */
    private static String run(List<String> cmd, int seconds) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
