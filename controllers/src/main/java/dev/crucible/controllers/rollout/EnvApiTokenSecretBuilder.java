package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The Secret holding the bearer token of the environment API of the Rollouts in one namespace
 * ({@value #NAME}), immutable. It is mounted into verifier sidecars only: an agent container shares its
 * pod's network and could reach the API, but has no volume, variable or API-server access (no service
 * account token) that would give it the token. A trainer reads it with its own credentials:
 * {@code kubectl get secret crucible-env-api -o jsonpath='{.data.token}' | base64 -d}. One per namespace,
 * not per Rollout: whoever may read one Rollout's Secret may read them all, and a Rollout then costs no
 * write for it. Owned by nothing (it outlives every Rollout); delete it to rotate the token: Rollouts
 * created after that get a new one.
 *
 * <p>Created once, never re-applied: a token generated again on a later reconcile would differ from
 * the one running sidecars already read, so a second apply would lock the trainer out.
 */
public final class EnvApiTokenSecretBuilder {
    public static final String TOKEN_KEY = "token";
    private static final SecureRandom RANDOM = new SecureRandom();

    private EnvApiTokenSecretBuilder() {
    }

    public static final String NAME = "crucible-env-api";

    public static Secret build(String namespace) {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        return new SecretBuilder()
                .withNewMetadata()
                .withName(NAME)
                .withNamespace(namespace)
                .withLabels(Map.of(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE))
                .endMetadata()
                .withType("Opaque")
                .withImmutable(true)
                .withStringData(Map.of(TOKEN_KEY, token))
                .build();
    }
}
