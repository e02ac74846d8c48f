package dev.crucible.controllers.status;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kubernetes Events on Crucible objects (kubectl describe shows them); best effort, never fails a reconcile. */
public final class EventRecorder {

    public static final String COMPONENT = "crucible-operator";
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

    private final KubernetesClient client;
    /** Events go out on their own threads so a slow API server never holds up reconciles; overflow is dropped. */
    private final java.util.concurrent.ThreadPoolExecutor sender = new java.util.concurrent.ThreadPoolExecutor(
            1, 2, 30, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.ArrayBlockingQueue<>(10_000),
            r -> {
                Thread t = new Thread(r, "crucible-events");
                t.setDaemon(true);
                return t;
            }, new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());

    public EventRecorder(KubernetesClient client) {
        this.client = client;
    }

    /**
     * A reconciler's recorder, made on first use: the client arrives with the first reconcile's
     * context, and one recorder (one sender pool) serves every later one.
     */
    public static final class Lazy {
        private volatile EventRecorder recorder;

        public EventRecorder of(KubernetesClient client) {
            EventRecorder r = recorder;
            if (r == null) {
                r = new EventRecorder(client);
                recorder = r;
            }
            return r;
        }
    }

    public void normal(HasMetadata object, String reason, String message) {
        record(object, "Normal", reason, message);
    }

    public void warning(HasMetadata object, String reason, String message) {
        record(object, "Warning", reason, message);
    }

    private void record(HasMetadata object, String type, String reason, String message) {
        String now = Conditions.format(Instant.now());
        var event = new EventBuilder()
                .withNewMetadata()
                .withName(object.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 13).replace("-", ""))
                .withNamespace(object.getMetadata().getNamespace())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(object.getApiVersion())
                .withKind(object.getKind())
                .withName(object.getMetadata().getName())
                .withNamespace(object.getMetadata().getNamespace())
                .withUid(object.getMetadata().getUid())
                .withResourceVersion(object.getMetadata().getResourceVersion())
                .endInvolvedObject()
                .withType(type)
                .withReason(reason)
                .withMessage(message == null ? "" : message.length() > 1024 ? message.substring(0, 1024) : message)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource().withComponent(COMPONENT).endSource()
                .build();
        sender.execute(() -> {
            try {
                client.v1().events().inNamespace(object.getMetadata().getNamespace()).resource(event).create();
            } catch (KubernetesClientException | IllegalStateException e) {
                // IllegalStateException: the client closed (operator stopping); the event is lost, as events may be.
                LOG.debug("could not record event {} on {}: {}", reason, object.getMetadata().getName(), e.getMessage());
            }
        });
    }
}
