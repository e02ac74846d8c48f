package dev.crucible.tracestore.common;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What an operator of the store sets (the chart's {@code traceStore.*} values become these environment variables).
 *
 * @param dir                  the volume: {@code rollouts/<ns>/<name>/} (the recorder's own layout) and {@code index/}
 * @param maxChunkBytes        one request's body (a segment's appended bytes or a blob)
 * @param maxSegmentBytes      one segment file (the recorder starts a new one at 8 MiB; room for a custom limit)
 * @param maxRolloutBytes      one rollout's segments and blobs together
 * @param retentionMaxBytes    the whole store; past it the oldest ended rollouts go, and a write that still does not
 *                             fit is refused (507)
 * @param retentionMaxAge      a rollout whose last write is older than this goes
 * @param writerServiceAccount the ServiceAccount, in the Rollout's own namespace, whose token may write its trajectory
 * @param writerAudience       the audience a writer's (projected) token must carry; empty: the API server's own
 * @param s3                   null: segments and blobs on the volume ({@code dir}); set: in that S3-compatible bucket,
 *                             and {@code dir} holds only the index
 */
public record StoreSettings(Path dir, int port, long maxChunkBytes, long maxSegmentBytes, long maxRolloutBytes,
                            long retentionMaxBytes, Duration retentionMaxAge, Duration retentionSweep,
                            String writerServiceAccount, String writerAudience, Duration authCacheTtl, S3Settings s3) {

    public static final String WRITER_SERVICE_ACCOUNT = "crucible-trace-writer";
    public static final String WRITER_AUDIENCE = "crucible-trace-store";

    public static StoreSettings defaults(Path dir) {
        return new StoreSettings(dir, 8470, 16L << 20, 64L << 20, 4L << 30, 100L << 30, Duration.ofDays(30),
                Duration.ofMinutes(5), WRITER_SERVICE_ACCOUNT, WRITER_AUDIENCE, Duration.ofSeconds(10), null);
    }

    /** From {@code CRUCIBLE_TRACE_STORE_*} variables; a value that does not parse names its variable. */
    public static StoreSettings fromEnv(Map<String, String> env) {
        StoreSettings d = defaults(Path.of(env.getOrDefault("CRUCIBLE_TRACE_STORE_DIR", "/var/lib/crucible/trace-store")));
        return new StoreSettings(d.dir(),
                (int) num(env, "PORT", d.port()),
                num(env, "MAX_CHUNK_BYTES", d.maxChunkBytes()),
                num(env, "MAX_SEGMENT_BYTES", d.maxSegmentBytes()),
                num(env, "MAX_ROLLOUT_BYTES", d.maxRolloutBytes()),
                num(env, "RETENTION_MAX_BYTES", d.retentionMaxBytes()),
                dur(env, "RETENTION_MAX_AGE", d.retentionMaxAge()),
                dur(env, "RETENTION_SWEEP", d.retentionSweep()),
                env.getOrDefault("CRUCIBLE_TRACE_STORE_WRITER_SERVICE_ACCOUNT", d.writerServiceAccount()),
                env.getOrDefault("CRUCIBLE_TRACE_STORE_WRITER_AUDIENCE", d.writerAudience()),
                dur(env, "AUTH_CACHE_TTL", d.authCacheTtl()),
                backend(env));
    }

    /** {@code CRUCIBLE_TRACE_STORE_BACKEND}: {@code volume} (the default) or {@code s3} with its settings. */
    private static S3Settings backend(Map<String, String> env) {
        String b = env.getOrDefault("CRUCIBLE_TRACE_STORE_BACKEND", "volume").trim();
        return switch (b) {
            case "", "volume" -> null;
            case "s3" -> S3Settings.fromEnv(env);
            default -> throw new IllegalArgumentException("CRUCIBLE_TRACE_STORE_BACKEND=" + b
                    + " (the chart's traceStore.backend) is not a backend: volume or s3");
        };
    }

    public StoreSettings withS3(S3Settings s) {
        return new StoreSettings(dir, port, maxChunkBytes, maxSegmentBytes, maxRolloutBytes, retentionMaxBytes, retentionMaxAge,
                retentionSweep, writerServiceAccount, writerAudience, authCacheTtl, s);
    }

    public StoreSettings withRetention(long maxBytes, Duration maxAge) {
        return new StoreSettings(dir, port, maxChunkBytes, maxSegmentBytes, maxRolloutBytes, maxBytes, maxAge,
                retentionSweep, writerServiceAccount, writerAudience, authCacheTtl, s3);
    }

    public StoreSettings withLimits(long chunk, long segment, long rollout) {
        return new StoreSettings(dir, port, chunk, segment, rollout, retentionMaxBytes, retentionMaxAge,
                retentionSweep, writerServiceAccount, writerAudience, authCacheTtl, s3);
    }

    public StoreSettings withPort(int p) {
        return new StoreSettings(dir, p, maxChunkBytes, maxSegmentBytes, maxRolloutBytes, retentionMaxBytes,
                retentionMaxAge, retentionSweep, writerServiceAccount, writerAudience, authCacheTtl, s3);
    }

    private static long num(Map<String, String> env, String key, long def) {
        String v = env.get("CRUCIBLE_TRACE_STORE_" + key);
        if (v == null || v.isBlank()) return def;
        try {
            long n = Long.parseLong(v.trim());
            if (n <= 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("CRUCIBLE_TRACE_STORE_" + key + "=" + v + " is not a positive whole number");
        }
    }

    /** ISO-8601 ({@code P30D}, {@code PT5M}) or a number of seconds. */
    private static Duration dur(Map<String, String> env, String key, Duration def) {
        String v = env.get("CRUCIBLE_TRACE_STORE_" + key);
        if (v == null || v.isBlank()) return def;
        try {
            return v.trim().matches("\\d+") ? Duration.ofSeconds(Long.parseLong(v.trim())) : Duration.parse(v.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("CRUCIBLE_TRACE_STORE_" + key + "=" + v
                    + " is not a duration (ISO-8601 such as P30D, or seconds)");
        }
    }
}
