package dev.crucible.tracestore.common;

import java.net.URI;
import java.util.Map;

/**
 * Where the S3-compatible backend keeps trajectories (the chart's {@code traceStore.s3.*}). Every value is checked
 * when the store starts, and one that is wrong stops it naming the variable and the chart value it comes from.
 *
 * @param endpoint        the object store's URL; null: AWS S3 of {@code region}
 * @param bucket          the bucket (it must exist: the store does not create buckets)
 * @param region          the signing region (S3-compatible stores take any; {@code us-east-1} by default)
 * @param pathStyle       {@code http://host/bucket/key} instead of {@code http://bucket.host/key} (most self-hosted stores)
 * @param prefix          a key prefix, empty or ending in {@code /}: several stores may share a bucket
 * @param accessKeyId     with {@code secretAccessKey}: static credentials (the chart's Secret); null: the SDK's
 *                        default chain (environment, web identity, instance profile)
 */
public record S3Settings(URI endpoint, String bucket, String region, boolean pathStyle, String prefix,
                         String accessKeyId, String secretAccessKey) {

    private static final String E = "CRUCIBLE_TRACE_STORE_S3_";

    /** Where it writes, for messages: never the credentials. */
    public String where() {
        return "at " + (endpoint == null ? "AWS S3 (" + region + ")" : endpoint.toString()) + ", bucket " + bucket
                + (prefix.isEmpty() ? "" : " under " + prefix);
    }

    /** {@code CRUCIBLE_TRACE_STORE_S3_*} and the standard {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}. */
    public static S3Settings fromEnv(Map<String, String> env) {
        return of(env.get(E + "ENDPOINT"), env.get(E + "BUCKET"), env.get(E + "REGION"), env.get(E + "PATH_STYLE"),
                env.get(E + "PREFIX"), env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY"));
    }

    /** Checks each value; a wrong one is an {@link IllegalArgumentException} naming its variable and chart value. */
    public static S3Settings of(String endpoint, String bucket, String region, String pathStyle, String prefix,
                                String accessKeyId, String secretAccessKey) {
        URI uri = null;
        if (blank(endpoint) == null) {
            uri = null;
        } else {
            try {
                uri = URI.create(endpoint.trim());
            } catch (IllegalArgumentException e) {
                uri = null;
            }
            if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))) {
                throw bad("ENDPOINT", "endpoint", endpoint, "is not an http(s) URL of a host (such as https://minio.storage:9000)");
            }
        }
        String b = blank(bucket);
        if (b == null) throw bad("BUCKET", "bucket", "", "is empty: the S3 backend needs an existing bucket");
        if (!b.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]") || b.contains("..")) {
            throw bad("BUCKET", "bucket", bucket, "is not an S3 bucket name (3-63 lower-case letters, digits, dots and hyphens)");
        }
        String r = blank(region) == null ? "us-east-1" : region.trim();
        if (!r.matches("[a-z0-9][a-z0-9-]{0,62}")) throw bad("REGION", "region", region, "is not a region name (such as us-east-1)");
        boolean path;
        String ps = blank(pathStyle) == null ? "false" : pathStyle.trim();
        if (ps.equals("true") || ps.equals("false")) path = Boolean.parseBoolean(ps);
        else throw bad("PATH_STYLE", "pathStyle", pathStyle, "is not true or false");
        String p = blank(prefix) == null ? "" : prefix.trim();
        if (!p.isEmpty()) {
            if (!p.endsWith("/")) p = p + "/";
            if (p.startsWith("/") || p.contains("//") || !p.matches("[A-Za-z0-9._/-]{1,256}")) {
                throw bad("PREFIX", "prefix", prefix, "is not a key prefix (letters, digits, '.', '_', '-', '/'; no leading or double '/')");
            }
        }
        String id = blank(accessKeyId);
        String secret = blank(secretAccessKey);
        if ((id == null) != (secret == null)) {
            throw new IllegalArgumentException((id == null ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY") + " is not set while "
                    + (id == null ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID") + " is: the Secret named by"
                    + " traceStore.s3.credentialsSecret needs both keys (accessKeyId, secretAccessKey)");
        }
        return new S3Settings(uri, b, r, path, p, id, secret);
    }

    private static String blank(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    private static IllegalArgumentException bad(String var, String value, String got, String why) {
        return new IllegalArgumentException(E + var + "='" + got + "' (the chart's traceStore.s3." + value + ") " + why);
    }

    @Override
    public String toString() {
        return "S3Settings[" + where() + ", pathStyle=" + pathStyle + (accessKeyId == null ? ", default credentials" : ", static credentials") + "]";
    }
}
