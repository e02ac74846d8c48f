package dev.crucible.controllers.environment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.validation.Manifest;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.SemanticChecks;
import dev.crucible.api.validation.ValidationError;
import java.util.List;

/**
 * Validates a stored RLEnvironment with the same code as {@code crucible validate} and the admission
 * webhook, so an object that slipped in before the webhook existed still gets a clear verdict.
 */
public final class EnvironmentValidation {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ManifestValidator validator;

    public EnvironmentValidation(ManifestValidator validator) {
        this.validator = validator;
    }

    public List<ValidationError> validate(RLEnvironment env) {
        ObjectNode body = JSON.createObjectNode();
        body.put("apiVersion", env.getApiVersion());
        body.put("kind", env.getKind());
        ObjectNode meta = body.putObject("metadata");
        // What a user writes; server-set metadata (uid, managedFields) is not the user's to fix.
        meta.put("name", env.getMetadata().getName());
        meta.put("namespace", env.getMetadata().getNamespace());
        if (env.getMetadata().getLabels() != null) {
            meta.set("labels", JSON.valueToTree(env.getMetadata().getLabels()));
        }
        if (env.getMetadata().getAnnotations() != null) {
            meta.set("annotations", JSON.valueToTree(env.getMetadata().getAnnotations()));
        }
        body.set("spec", JSON.valueToTree(env.getSpec()));
        String source = "RLEnvironment " + env.getMetadata().getNamespace() + "/" + env.getMetadata().getName();
        return validator.validate(new Manifest(source, 1, body), SemanticChecks.Context.cluster());
    }

    /** One line per error, {@code path: message}, for a condition message. */
    public static String summary(List<ValidationError> errors) {
        StringBuilder sb = new StringBuilder();
        for (ValidationError e : errors) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(e.path()).append(": ").append(e.message());
            if (sb.length() > 2000) {
                sb.append(" …");
                break;
            }
        }
        return sb.toString();
    }
}
