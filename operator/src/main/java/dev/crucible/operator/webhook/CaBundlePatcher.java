package dev.crucible.operator.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the CA bundle into {@code clientConfig.caBundle} of every webhook of one
 * ValidatingWebhookConfiguration, with server-side apply as field manager {@value #FIELD_MANAGER}. The
 * apply names only {@code webhooks[name].clientConfig.caBundle}, so a GitOps tool or Helm that owns the
 * rest of the object keeps owning it, and neither side undoes the other.
 */
public final class CaBundlePatcher {

    /** The same field manager as the controllers' server-side applies. */
    public static final String FIELD_MANAGER = "crucible-operator";

    private static final Logger LOG = LoggerFactory.getLogger(CaBundlePatcher.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;

    public CaBundlePatcher(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Patches when any webhook's caBundle differs; true when it did. A configuration that does not exist
     * is logged and left alone: creating it is the chart's job (and the RBAC allows no create).
     */
    public boolean apply(String configurationName, String caBundlePem) {
        ValidatingWebhookConfiguration current = client.admissionRegistration().v1().validatingWebhookConfigurations()
                .withName(configurationName).get();
        if (current == null) {
            LOG.warn("ValidatingWebhookConfiguration {} not found: the admission webhook is not registered, so the API server "
                    + "does not call it (install it with the Helm chart, webhook.enabled=true)", configurationName);
            return false;
        }
        String wanted = Base64.getEncoder().encodeToString(caBundlePem.getBytes(StandardCharsets.UTF_8));
        boolean upToDate = !current.getWebhooks().isEmpty() && current.getWebhooks().stream()
                .allMatch(w -> w.getClientConfig() != null && wanted.equals(w.getClientConfig().getCaBundle()));
        if (upToDate || current.getWebhooks().isEmpty()) {
            return false;
        }
        // Every webhook every time: with server-side apply, a field this manager applied before and
        // leaves out now would be removed.
        ObjectNode patch = JSON.createObjectNode();
        patch.put("apiVersion", "admissionregistration.k8s.io/v1");
        patch.put("kind", "ValidatingWebhookConfiguration");
        patch.putObject("metadata").put("name", configurationName);
        ArrayNode webhooks = patch.putArray("webhooks");
        for (ValidatingWebhook w : current.getWebhooks()) {
            ObjectNode entry = webhooks.addObject();
            entry.put("name", w.getName());
            entry.putObject("clientConfig").put("caBundle", wanted);
        }
        // force: the caBundle is this operator's by design; whoever wrote it before (a hand edit, an
        // earlier cert-manager injection) gives it up instead of failing the apply with a conflict.
        client.admissionRegistration().v1().validatingWebhookConfigurations().withName(configurationName)
                .patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(FIELD_MANAGER).withForce(true).build(), patch.toString());
        LOG.info("Set the caBundle of {} webhook(s) in ValidatingWebhookConfiguration {}", webhooks.size(), configurationName);
        return true;
    }
}
