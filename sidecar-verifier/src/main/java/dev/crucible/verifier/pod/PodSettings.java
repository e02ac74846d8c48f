package dev.crucible.verifier.pod;

import dev.crucible.contract.SpecDefaults;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/**
 * What the operator tells the sidecar of a rollout pod, through environment variables (the pod
 * contract in controllers/README.md). A missing or malformed variable is an error naming it.
 * {@code CRUCIBLE_API_TOKEN_FILE} names the environment API's bearer token: a key of the Rollout's
 * Secret, mounted into the sidecar container only (the variable holds a path, never the token).
 * {@code CRUCIBLE_GRADING_SOCKET} and {@code CRUCIBLE_GRADING_DIR} name the grading container's socket
 * and where grading trees are built on the volume it shares with the sidecar (both or neither).
 * {@code CRUCIBLE_AGENT_EXEC_SOCKET} (interactive pods) names the agent-exec container's socket: the
 * agent's commands run there, never in the sidecar's container. {@code CRUCIBLE_DEADLINE_AT} (RFC 3339) is the
 * operator's absolute deadline for the rollout. {@code CRUCIBLE_ORACLE_SOCKET} and {@code CRUCIBLE_ORACLE_DIR}
 * (both or neither, and only with the grading pair) name the oracle-worker container's socket and the oracle
 * volume, where the isolated oracle's workers run the code under test apart from the grading process.
 * {@code CRUCIBLE_RESULT_MAX_BYTES}: what the kubelet keeps of this container's termination message in this pod
 * (12 KiB split over all its containers, at most 4 KiB); the result is cut to it.
 * {@code CRUCIBLE_WARM_POOL} (a warm-pool pod, issue 39) names the claim file: the pod has no Rollout yet, and the
 * Rollout's identity, deadline and limits come from the claim ({@link WarmClaim}) instead of the variables above.
 */
public record PodSettings(Path environmentFile, Path workspace, Path pristine, Path runDir, int port, Path resultFile,
                          long maxDurationSeconds, int maxTurns, boolean interactive, Path execSocket, Path apiTokenFile,
                          Path gradingSocket, Path gradingDir, Path agentExecSocket, Instant deadlineAt,
                          Path oracleSocket, Path oracleDir, int resultMaxBytes, Path claimFile) {

    /** A warm-pool pod ({@code CRUCIBLE_WARM_POOL} names its claim file): it waits for a claim before the attempt. */
    public boolean warm() {
        return claimFile != null;
    }

    /**
     * When the episode ends: the operator's deadline ({@code CRUCIBLE_DEADLINE_AT}, the Rollout's creation plus
     * maxDurationSeconds) when it gave one, else {@code start} plus maxDurationSeconds. Ending at the operator's
     * own deadline lets the result, with the live findings that make a timed-out run Hacked, reach it in time.
     */
    public Instant deadline(Instant start) {
        Instant own = start.plusSeconds(maxDurationSeconds);
        return deadlineAt != null && deadlineAt.isBefore(own) ? deadlineAt : own;
    }

    /** The file the agent container's wrapper writes its exit status to when the agent command ends. */
    public static final String AGENT_EXIT_FILE = dev.crucible.contract.RunFolder.AGENT_EXIT;

    public static boolean present(Map<String, String> env) {
        return env.containsKey("CRUCIBLE_ENVIRONMENT_FILE");
    }

    public static PodSettings fromEnvironment(Map<String, String> env) {
        String mode = env.getOrDefault("CRUCIBLE_MODE", "embedded");
        if (!mode.equals("embedded") && !mode.equals("interactive")) {
            throw new IllegalArgumentException("CRUCIBLE_MODE: expected embedded or interactive, got '" + mode + "'");
        }
        Path gradingSocket = path(env, "CRUCIBLE_GRADING_SOCKET", "");
        Path gradingDir = path(env, "CRUCIBLE_GRADING_DIR", "");
        if ((gradingSocket == null) != (gradingDir == null)) {
            throw new IllegalArgumentException((gradingSocket == null ? "CRUCIBLE_GRADING_SOCKET" : "CRUCIBLE_GRADING_DIR")
                    + ": required with " + (gradingSocket == null ? "CRUCIBLE_GRADING_DIR" : "CRUCIBLE_GRADING_SOCKET"));
        }
        Path oracleSocket = path(env, "CRUCIBLE_ORACLE_SOCKET", "");
        Path oracleDir = path(env, "CRUCIBLE_ORACLE_DIR", "");
        if ((oracleSocket == null) != (oracleDir == null)) {
            throw new IllegalArgumentException((oracleSocket == null ? "CRUCIBLE_ORACLE_SOCKET" : "CRUCIBLE_ORACLE_DIR")
                    + ": required with " + (oracleSocket == null ? "CRUCIBLE_ORACLE_DIR" : "CRUCIBLE_ORACLE_SOCKET"));
        }
        if (oracleSocket != null && gradingSocket == null) {
            throw new IllegalArgumentException("CRUCIBLE_ORACLE_SOCKET: needs CRUCIBLE_GRADING_SOCKET (the workers serve the grading container)");
        }
        return new PodSettings(
                path(env, "CRUCIBLE_ENVIRONMENT_FILE", null),
                path(env, "CRUCIBLE_WORKSPACE", null),
                path(env, "CRUCIBLE_PRISTINE", ""),
                path(env, "CRUCIBLE_RUN_DIR", null),
                (int) number(env, "CRUCIBLE_PORT", 8080),
                path(env, "CRUCIBLE_RESULT_FILE", "/dev/termination-log"),
                number(env, "CRUCIBLE_MAX_DURATION_SECONDS", SpecDefaults.MAX_DURATION_SECONDS),
                (int) number(env, "CRUCIBLE_MAX_TURNS", 0),
                mode.equals("interactive"),
                path(env, "CRUCIBLE_EXEC_SOCKET", ""),
                // the environment API never runs without a token: a missing file is an error naming the variable
                path(env, "CRUCIBLE_API_TOKEN_FILE", null),
                gradingSocket, gradingDir,
                path(env, "CRUCIBLE_AGENT_EXEC_SOCKET", ""),
                instant(env, "CRUCIBLE_DEADLINE_AT"), oracleSocket, oracleDir,
                (int) Math.min(PodResult.MAX_BYTES, number(env, "CRUCIBLE_RESULT_MAX_BYTES", PodResult.MAX_BYTES)),
                path(env, "CRUCIBLE_WARM_POOL", ""));
    }

    private static Instant instant(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return null;
        try {
            return Instant.parse(v.strip());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(name + ": expected an RFC 3339 time such as 2026-11-28T04:00:00Z, got '" + v + "'");
        }
    }

    public Path agentExitFile() {
        return runDir.resolve(AGENT_EXIT_FILE);
    }

    /** Written once the episode runs and the monitor watches; the agent container's wrapper waits for it. */
    public Path episodeStartedFile() {
        return runDir.resolve(dev.crucible.contract.RunFolder.EPISODE_STARTED);
    }

    private static Path path(Map<String, String> env, String name, String fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            if (fallback == null) {
                throw new IllegalArgumentException(name + ": required");
            }
            return fallback.isEmpty() ? null : Path.of(fallback);
        }
        return Path.of(v);
    }

    private static long number(Map<String, String> env, String name, long fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": expected a non-negative whole number, got '" + v + "'");
        }
    }
}
