package dev.crucible.tracestore.store;

import dev.crucible.tracestore.common.S3Settings;
import dev.crucible.tracestore.common.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@link S3Storage}'s client and what becomes of the object store's answers (which status, which message). */
final class S3Access {
    private final S3Client s3;
    private final S3Settings cfg;

    S3Access(S3Client s3, S3Settings cfg) {
        this.s3 = s3;
        this.cfg = cfg;
    }

    /**
     * The SDK's S3 client on the JDK's HTTP connection. Checksums only where the operation needs one: the SDK's newer
     * default (a CRC on every request and response) is not understood by every S3-compatible store.
     */
    static S3Client client(S3Settings c) {
        var b = S3Client.builder()
                .region(Region.of(c.region()))
                .forcePathStyle(c.pathStyle())
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofSeconds(60)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(120)))
                .credentialsProvider(c.accessKeyId() != null
                        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(c.accessKeyId(), c.secretAccessKey()))
                        : DefaultCredentialsProvider.builder().build());
        if (c.endpoint() != null) b.endpointOverride(c.endpoint());
        return b.build();
    }

    List<S3Object> listAll(String prefix) {
        return call("listing " + prefix, () -> { // the pages are fetched as they are iterated: inside the call
            List<S3Object> out = new ArrayList<>();
            for (var page : s3.listObjectsV2Paginator(b -> b.bucket(cfg.bucket()).prefix(prefix))) out.addAll(page.contents());
            return out;
        });
    }

    /** A missing object (404), told apart from a refusal. */
    static final class NotStored extends RuntimeException {
        NotStored(String m) { super(m, null, false, false); }
    }

    /**
     * Runs one call; what the object store answers becomes a {@link StoreException} naming it: unreachable or
     * refusing is 503 (the sidecar tries again later), out of room is 507 as a full volume is.
     */
    <T> T call(String what, Supplier<T> op) {
        try {
            return op.get();
        } catch (NoSuchKeyException e) {
            throw new NotStored(what + ": no such object");
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) throw new NotStored(what + ": no such object");
            String m = "the object store " + cfg.where() + " refused " + what + ": " + code(e) + " (HTTP " + e.statusCode() + ")";
            if (e.statusCode() == 507 || code(e).matches("(?i).*(quota|storagefull|insufficient).*")) {
                throw StoreException.full(m + " — it is full");
            }
            throw new StoreException(503, m);
        } catch (SdkClientException e) {
            throw new StoreException(503, "the object store " + cfg.where() + " could not be reached (" + what + "): " + e.getMessage());
        }
    }

    private static String code(S3Exception e) {
        return e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null ? "error" : e.awsErrorDetails().errorCode();
    }

}
