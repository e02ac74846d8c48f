package dev.crucible.verifier.grade.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the oracle plugin reads at import ({@link OracleFiles#CONFIG_VAR}): the tree under test, the files of it
 * that are trusted test code (null: by name, {@code test_*.py}, {@code *_test.py}, {@code conftest.py} and files
 * under {@code tests/}), the scratch folder both sides see, the per-call deadline, where the per-test record goes,
 * and how a worker is started: {@code bwrap} (the plugin runs bubblewrap itself) or {@code fifo} (the grader's
 * OracleWorkers starts each one in a box of its own, asked through the FIFO {@code launcherSpawn}, which no worker
 * sees; the workers' FIFOs are in {@code launcherDir}).
 */
public record OracleConfig(Path root, List<String> trusted, Path sharedTmp, Duration callTimeout, Path out,
                           String launcher, Path launcherDir, Path bwrap, Path workerStderr, Path launcherSpawn) {

    /**
     * Round trips to the worker one test may make before it is stopped and graded in-process instead, named with the
     * reason {@code round-trip-budget} (oracle_conn). Round trips, not seconds: a round trip costs 30-300 us by load, and a
     * count gives the same tree and tests the same label at any load, where a time budget would grade a test isolated on
     * a quiet machine and in-process on a busy one. 20,000 is about 20 times the heaviest test of {@code crucible verify
     * bench}'s call-heavy suite (about 1,050) and 2-6 s of a test's time split at load 10-40; toolz's {@code bench/}
     * tests make about 800,000 each. A tree can inflate its tests' counts to be graded in-process: the grade names each
     * such test and their share ({@code details.integrity.roundTripBudget}), so a trainer can filter (sidecar README).
     */
    public static final int ROUND_TRIP_BUDGET = 20_000;

    /** A {@code bwrap} launcher's configuration (no spawn FIFO). */
    public OracleConfig(Path root, List<String> trusted, Path sharedTmp, Duration callTimeout, Path out,
                        String launcher, Path launcherDir, Path bwrap, Path workerStderr) {
        this(root, trusted, sharedTmp, callTimeout, out, launcher, launcherDir, bwrap, workerStderr, null);
    }

    public OracleConfig {
        if (root == null) throw new IllegalArgumentException("oracle config: root is required");
        if (!"bwrap".equals(launcher) && !"fifo".equals(launcher)) {
            throw new IllegalArgumentException("oracle config: launcher must be bwrap or fifo, got " + launcher);
        }
        if ("fifo".equals(launcher) && launcherDir == null) throw new IllegalArgumentException("oracle config: launcherDir is required for fifo");
        if ("fifo".equals(launcher) && launcherSpawn == null) throw new IllegalArgumentException("oracle config: launcherSpawn is required for fifo");
        trusted = trusted == null ? null : List.copyOf(trusted);
        if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) callTimeout = Duration.ofSeconds(60);
    }

    /** Writes the configuration as JSON to {@code file}; returns {@code file}. */
    public Path write(Path file) {
        return write(file, List.of());
    }

    /**
     * As {@link #write(Path)}, naming the hidden test data files (relative, not Python) that the trusted side watches
     * with the kernel's inotify: a read of one by any process but the grading one, unasked by a call, is an attempt.
     */
    public Path write(Path file, List<String> hiddenData) {
        return write(file, hiddenData, ROUND_TRIP_BUDGET);
    }

    /** As {@link #write(Path, List)}, with a per-test round-trip budget ({@link #ROUND_TRIP_BUDGET}; 0: none). */
    public Path write(Path file, List<String> hiddenData, int roundTrips) {
        return write(file, hiddenData, roundTrips, null);
    }

    /**
     * As {@link #write(Path, List, int)}; {@code shown} (null: {@code root}) is where the workers see their copy of the tree
     * (the agent's workspace path, {@link OracleWorkers}): the plugin sends them its import path and folder translated there.
     */
    public Path write(Path file, List<String> hiddenData, int roundTrips, Path shown) {
        if (roundTrips < 0) throw new IllegalArgumentException("oracle config: roundTrips must be 0 (none) or more, got " + roundTrips);
        Map<String, Object> launch = new LinkedHashMap<>();
        launch.put("kind", launcher);
        if (launcherDir != null) launch.put("dir", launcherDir.toString());
        if (launcherSpawn != null) launch.put("spawn", launcherSpawn.toString());
        if (bwrap != null) launch.put("bwrap", bwrap.toString());
        if (workerStderr != null) launch.put("stderr", workerStderr.toString());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("root", root.toAbsolutePath().normalize().toString());
        if (trusted != null) m.put("trusted", trusted);
        if (sharedTmp != null) m.put("shared_tmp", sharedTmp.toAbsolutePath().normalize().toString());
        m.put("timeout", callTimeout.toMillis() / 1000.0);
        if (out != null) m.put("out", out.toAbsolutePath().normalize().toString());
        m.put("launcher", launch);
        if (hiddenData != null && !hiddenData.isEmpty()) m.put("hidden_data", List.copyOf(hiddenData));
        if (roundTrips > 0) m.put("round_trips", roundTrips);
        if (shown != null && !shown.toAbsolutePath().normalize().equals(root.toAbsolutePath().normalize())) {
            m.put("shown", shown.toAbsolutePath().normalize().toString());
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(m));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("writing the oracle configuration " + file + ": " + e.getMessage(), e);
        }
    }
}
