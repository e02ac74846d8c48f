package dev.crucible.tracestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.tracestore.common.S3Settings;
import dev.crucible.tracestore.common.StoreSettings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The backend's settings as the chart sets them: the volume by default, and each wrong S3 value named at start. */
class S3SettingsTest {

    private static Map<String, String> s3(String... kv) {
        Map<String, String> env = new HashMap<>(Map.of("CRUCIBLE_TRACE_STORE_BACKEND", "s3", "CRUCIBLE_TRACE_STORE_S3_BUCKET", "traces"));
        for (int i = 0; i < kv.length; i += 2) env.put(kv[i], kv[i + 1]);
        return env;
    }

    @Test
    void theVolumeIsTheDefaultAndS3IsReadWhole() {
        assertThat(StoreSettings.fromEnv(Map.of()).s3()).isNull();
        assertThat(StoreSettings.fromEnv(Map.of("CRUCIBLE_TRACE_STORE_BACKEND", "volume")).s3()).isNull();
        S3Settings s = StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_ENDPOINT", "http://minio.storage:9000",
                "CRUCIBLE_TRACE_STORE_S3_PATH_STYLE", "true", "CRUCIBLE_TRACE_STORE_S3_PREFIX", "team/one",
                "AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret")).s3();
        assertThat(s.endpoint().toString()).isEqualTo("http://minio.storage:9000");
        assertThat(s.bucket()).isEqualTo("traces");
        assertThat(s.region()).isEqualTo("us-east-1");
        assertThat(s.pathStyle()).isTrue();
        assertThat(s.prefix()).isEqualTo("team/one/");
        assertThat(s.toString()).doesNotContain("secret").doesNotContain("=id");
        S3Settings aws = StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_REGION", "eu-west-1")).s3();
        assertThat(aws.endpoint()).isNull();
        assertThat(aws.accessKeyId()).isNull();
        assertThat(aws.where()).contains("AWS S3 (eu-west-1)");
    }

    @Test
    void aWrongValueIsNamedWithItsChartValue() {
        assertThatThrownBy(() -> StoreSettings.fromEnv(Map.of("CRUCIBLE_TRACE_STORE_BACKEND", "gcs")))
                .hasMessageContaining("CRUCIBLE_TRACE_STORE_BACKEND=gcs").hasMessageContaining("traceStore.backend");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_BUCKET", "")))
                .hasMessageContaining("CRUCIBLE_TRACE_STORE_S3_BUCKET").hasMessageContaining("traceStore.s3.bucket").hasMessageContaining("empty");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_BUCKET", "My_Bucket")))
                .hasMessageContaining("'My_Bucket'").hasMessageContaining("not an S3 bucket name");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_ENDPOINT", "minio:9000")))
                .hasMessageContaining("traceStore.s3.endpoint").hasMessageContaining("not an http(s) URL");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_ENDPOINT", "http://minio:9000/traces")))
                .hasMessageContaining("traceStore.s3.endpoint");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_PATH_STYLE", "yes")))
                .hasMessageContaining("traceStore.s3.pathStyle").hasMessageContaining("not true or false");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_REGION", "EU West")))
                .hasMessageContaining("traceStore.s3.region");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("CRUCIBLE_TRACE_STORE_S3_PREFIX", "/abs")))
                .hasMessageContaining("traceStore.s3.prefix");
        assertThatThrownBy(() -> StoreSettings.fromEnv(s3("AWS_ACCESS_KEY_ID", "id")))
                .hasMessageContaining("AWS_SECRET_ACCESS_KEY is not set").hasMessageContaining("traceStore.s3.credentialsSecret");
    }
}
