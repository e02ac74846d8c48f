package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The Secret holding the bearer token of a Rollout's environment API: one per Rollout, owned by it
 * (deleted with it), immutable. It is mounted into the verifier sidecar only: the agent container
 * shares the pod's network and could reach the API, but has no volume, variable or API-server
 * access (no service account token) that would give it the token. A trainer reads it with its own
 * credentials: {@code kubectl get secret NAME-env-api -o jsonpath='{.data.token}' | base64 -d}.
 *
 * <p>Created once, never re-applied: a token generated again on a later reconcile would differ from
 * the one running sidecars already read, so a second apply would lock the trainer out.
 */
public final class EnvApiTokenSecretBuilder {
    public static final String TOKEN_KEY = "token";
    private static final SecureRandom RANDOM = new SecureRandom();

    private EnvApiTokenSecretBuilder() {
    }

    public static String name(String rollout) {
        return rollout + "-env-api";
    }

    public static Secret build(Rollout rollout) {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name(rollout.getMetadata().getName()))
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(RolloutLabels.forRollout(rollout.getMetadata().getName()))
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withType("Opaque")
                .withImmutable(true)
                .withStringData(Map.of(TOKEN_KEY, token))
                .build();
    }
}
