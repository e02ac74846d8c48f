package dev.crucible.operator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.controllers.admission.AdmissionReviewer;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /validate}: the validating admission webhook (AdmissionReview v1) for RLEnvironment,
 * Rollout, RolloutSnapshot and ProbeModel. Same validator as {@code crucible validate}; a refusal
 * names every field path, so {@code kubectl apply} shows the user exactly what to fix.
 */
@Path("/validate")
public class ValidatingWebhook {

    @Inject
    AdmissionReviewer reviewer;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public JsonNode validate(JsonNode review) {
        return reviewer.review(review);
    }
}
