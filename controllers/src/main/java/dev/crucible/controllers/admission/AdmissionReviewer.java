package dev.crucible.controllers.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.api.validation.Manifest;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.SemanticChecks;
import dev.crucible.api.validation.ValidationError;
import java.util.List;

/**
 * The validating admission webhook's logic (AdmissionReview v1 in, AdmissionReview v1 out), framework
 * free so it is tested without an HTTP server. It runs the same {@link ManifestValidator} as
 * {@code crucible validate}, in the cluster context, and refuses with every field path in the message.
 */
public final class AdmissionReviewer {

    public static final String API_VERSION = "admission.k8s.io/v1";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> USER_METADATA = List.of("name", "generateName", "namespace", "labels", "annotations");

    private final ManifestValidator validator;

    public AdmissionReviewer(ManifestValidator validator) {
        this.validator = validator;
    }

    public ObjectNode review(JsonNode review) {
        JsonNode request = review == null ? JSON.missingNode() : review.path("request");
        ObjectNode out = JSON.createObjectNode();
        out.put("apiVersion", API_VERSION);
        out.put("kind", "AdmissionReview");
        ObjectNode response = out.putObject("response");
        response.put("uid", request.path("uid").asText(""));
        if (!request.isObject()) {
            return deny(response, 400, "BadRequest", "not an AdmissionReview: request is missing");
        }
        JsonNode object = request.path("object");
        if ("DELETE".equals(request.path("operation").asText()) || !object.isObject()) {
            response.put("allowed", true);
            return out;
        }
        ObjectNode body = userView(object, request.path("namespace").asText(null));
        String source = body.path("kind").asText("?") + " " + body.path("metadata").path("namespace").asText("default")
                + "/" + body.path("metadata").path("name").asText("?");
        List<ValidationError> errors = validator.validate(new Manifest(source, 1, body), SemanticChecks.Context.cluster());
        if (errors.isEmpty()) {
            response.put("allowed", true);
            return out;
        }
        deny(response, 422, "Invalid", message(errors));
        return out;
    }

    /** {@code Kind/name: path: message; path: message}: what kubectl prints after "admission webhook ... denied". */
    static String message(List<ValidationError> errors) {
        StringBuilder sb = new StringBuilder(errors.get(0).resource()).append(": ");
        for (int i = 0; i < errors.size(); i++) {
            if (i > 0) {
                sb.append("; ");
            }
            sb.append(errors.get(i).path()).append(": ").append(errors.get(i).message());
            if (sb.length() > 3000) {
                sb.append("; … ").append(errors.size() - i - 1).append(" more");
                break;
            }
        }
        return sb.toString();
    }

    private static ObjectNode deny(ObjectNode response, int code, String reason, String message) {
        response.put("allowed", false);
        ObjectNode status = response.putObject("status");
        status.put("code", code);
        status.put("reason", reason);
        status.put("message", message);
        return response;
    }

    /** What a user wrote: server-set metadata and status are not theirs to get wrong. */
    private static ObjectNode userView(JsonNode object, String requestNamespace) {
        ObjectNode body = ((ObjectNode) object).deepCopy();
        body.remove("status");
        JsonNode meta = body.path("metadata");
        ObjectNode cleaned = JSON.createObjectNode();
        if (meta.isObject()) {
            for (String field : USER_METADATA) {
                if (meta.has(field)) {
                    cleaned.set(field, meta.get(field));
                }
            }
            if (cleaned.has("annotations")) {
                ((ObjectNode) cleaned.get("annotations")).remove("kubectl.kubernetes.io/last-applied-configuration");
            }
        }
        if (!cleaned.has("namespace") && requestNamespace != null) {
            cleaned.put("namespace", requestNamespace);
        }
        body.set("metadata", cleaned);
        return body;
    }
}
