package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.e2e.cluster.InProcessOperator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The webhook's logic on the repository's examples: what the API server lets through, the webhook still refuses. */
class AdmissionWebhookLogicTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final AdmissionReviewer reviewer = new AdmissionReviewer(InProcessOperator.validator());

    private static JsonNode review(Path file, String operation) throws Exception {
        JsonNode object = new YAMLMapper().readTree(Files.readString(file));
        ObjectNode review = JSON.createObjectNode();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request");
        request.put("uid", "705ab4f5-6393-11e8-b7cc-42010a800002");
        request.put("operation", operation);
        request.put("namespace", "team-a");
        request.set("object", object);
        return review;
    }

    @Test
    void semanticErrorIsRefusedWithTheFieldPath() throws Exception {
        JsonNode out = reviewer.review(review(ExamplesOnApiServerTest.examples().resolve("invalid/07-env-fail-to-pass-overlap.yaml"), "CREATE"));
        assertThat(out.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(out.path("response").path("uid").asText()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(out.path("response").path("allowed").asBoolean()).isFalse();
        assertThat(out.path("response").path("status").path("code").asInt()).isEqualTo(422);
        assertThat(out.path("response").path("status").path("message").asText())
                .contains("RLEnvironment/bad-env").contains("spec.verifier.passToPass[0]");
    }

    @Test
    void protectedPathEscapingTheWorkspaceIsRefused() throws Exception {
        JsonNode out = reviewer.review(review(ExamplesOnApiServerTest.examples().resolve("invalid/27-protected-path-escapes.yaml"), "UPDATE"));
        assertThat(out.path("response").path("allowed").asBoolean()).isFalse();
        assertThat(out.path("response").path("status").path("message").asText()).contains("spec.verifier.protectedPaths");
    }

    @Test
    void validExamplesAndDeletesAreAllowed() throws Exception {
        assertThat(reviewer.review(review(ExamplesOnApiServerTest.examples().resolve("python-bugfix/environment.yaml"), "CREATE"))
                .path("response").path("allowed").asBoolean()).isTrue();
        assertThat(reviewer.review(review(ExamplesOnApiServerTest.examples().resolve("gpu-distributed/rollout.yaml"), "CREATE"))
                .path("response").path("allowed").asBoolean()).isTrue();
        assertThat(reviewer.review(review(ExamplesOnApiServerTest.examples().resolve("invalid/07-env-fail-to-pass-overlap.yaml"), "DELETE"))
                .path("response").path("allowed").asBoolean()).isTrue();
    }
}
