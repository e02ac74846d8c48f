package dev.crucible.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The admission webhook over real HTTP, as the API server calls it. */
@QuarkusTest
class ValidatingWebhookTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/validate")
    URI validate;

    private JsonNode post(String object, String operation) throws Exception {
        String review = """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
                 "request":{"uid":"e911857d-c318-11e8-bbad-025000000001","operation":"%s","namespace":"team-a",
                 "kind":{"group":"crucible.dev","version":"v1alpha1","kind":"RLEnvironment"},
                 "object":%s}}""".formatted(operation, object);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(validate)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(review)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static String environment(String verifier) {
        return """
                {"apiVersion":"crucible.dev/v1alpha1","kind":"RLEnvironment",
                 "metadata":{"name":"calc","namespace":"team-a","uid":"x","resourceVersion":"1","managedFields":[]},
                 "spec":{"image":"example/env:1","task":{"prompt":"fix it"},"verifier":%s}}""".formatted(verifier);
    }

    @Test
    void validEnvironmentIsAllowed() throws Exception {
        JsonNode out = post(environment("{\"type\":\"test-suite\",\"command\":\"pytest -q\"}"), "CREATE");
        assertThat(out.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(out.path("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(out.path("response").path("uid").asText()).isEqualTo("e911857d-c318-11e8-bbad-025000000001");
        assertThat(out.path("response").path("allowed").asBoolean()).isTrue();
    }

    @Test
    void ruleCelCannotExpressIsRefusedWithTheFieldPath() throws Exception {
        JsonNode out = post(environment("""
                {"type":"test-suite","command":"pytest -q","failToPass":["t::a"],"passToPass":["t::a"]}"""), "CREATE");
        assertThat(out.path("response").path("allowed").asBoolean()).isFalse();
        assertThat(out.path("response").path("status").path("code").asInt()).isEqualTo(422);
        assertThat(out.path("response").path("status").path("message").asText())
                .contains("RLEnvironment/calc").contains("spec.verifier.passToPass[0]");
    }

    @Test
    void schemaErrorIsRefusedWithTheFieldPath() throws Exception {
        JsonNode out = post(environment("{\"type\":\"unit-tests\",\"command\":\"pytest\"}"), "UPDATE");
        assertThat(out.path("response").path("allowed").asBoolean()).isFalse();
        assertThat(out.path("response").path("status").path("message").asText()).contains("spec.verifier.type");
    }

    @Test
    void deleteIsAlwaysAllowed() throws Exception {
        JsonNode out = post(environment("{\"type\":\"unit-tests\"}"), "DELETE");
        assertThat(out.path("response").path("allowed").asBoolean()).isTrue();
    }
}
