package dev.crucible.controllers.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an RBAC refusal visible where a platform team looks: a {@code PermissionDenied} condition and
 * a Warning Event on the object, naming the verb and resource, and one log line (the trace at debug).
 * A refusal already on the object (same message) is not reported again on each retry.
 */
public final class PermissionReporter {

    public static final String CONDITION = "PermissionDenied";
    /** How long a reconcile waits before retrying a refused call (someone has to fix the RBAC). */
    public static final long RETRY_MILLIS = 30_000;
    private static final Logger LOG = LoggerFactory.getLogger(PermissionReporter.class);

    private PermissionReporter() {
    }

    /**
     * Reports {@code denied} on {@code object}, whose current conditions are {@code conditions}.
     * @param doing what the operator was doing, e.g. "reconcile" or "cleanup"
     */
    public static void report(KubernetesClient client, EventRecorder events, HasMetadata object, List<Condition> conditions,
                              String doing, PermissionDenied denied, Throwable trace) {
        report(client, events, object, conditions, CONDITION, "Forbidden", doing + " forbidden: " + denied.describe(), trace);
    }

    /**
     * Any failure as a condition of type {@code type} (status True) with an Event of that reason and one log
     * line (the trace at debug); the same message already on the object is not reported again.
     */
    static void report(KubernetesClient client, EventRecorder events, HasMetadata object, List<Condition> conditions,
                       String type, String reason, String message, Throwable trace) {
        String id = object.getKind() + " " + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
        Condition existing = Conditions.find(conditions, type);
        LOG.debug("{}: {}", id, message, trace);
        if (existing != null && "True".equals(existing.getStatus()) && message.equals(existing.getMessage())) {
            return;
        }
        LOG.warn("{}: {}", id, message);
        events.warning(object, type, message);
        List<Condition> updated = Conditions.set(conditions, type, true, reason, message,
                object.getMetadata().getGeneration(), Instant.now());
        try {
            patchConditions(client, object, updated);
        } catch (KubernetesClientException e) {
            LOG.warn("{}: could not write the {} condition: {}", id, type, e.getMessage());
        }
    }

    /**
     * Runs one reconcile; an RBAC refusal becomes the condition + Event + one log line and a retry in
     * {@link #RETRY_MILLIS}, instead of an exception (whose 75-line trace the SDK logs on every retry).
     * A reconcile that succeeds clears a condition left by an earlier refusal.
     */
    public static <R extends HasMetadata> UpdateControl<R> reconcile(R primary, Context<R> context, EventRecorder.Lazy events,
                                                                      Function<R, List<Condition>> conditions,
                                                                      Supplier<UpdateControl<R>> reconcile) {
        UpdateControl<R> control;
        try {
            control = reconcile.get();
        } catch (RuntimeException e) {
            PermissionDenied denied = PermissionDenied.of(e).orElseThrow(() -> e);
            report(context.getClient(), events.of(context.getClient()), primary, conditions.apply(primary), "reconcile", denied, e);
            return UpdateControl.<R>noUpdate().rescheduleAfter(RETRY_MILLIS);
        }
        clearIfSet(context.getClient(), primary, conditions);
        return control;
    }

    /**
     * Work done after {@code object} was deleted (no finalizer holds it): nothing can be retried on it and
     * it can hold no condition, so a failure is a Warning Event about it (an RBAC refusal naming the verb
     * and resource) and one log line; the garbage collector does what owner references allow.
     */
    public static void afterDeletion(EventRecorder events, HasMetadata object, String doing, Runnable work) {
        try {
            work.run();
        } catch (KubernetesClientException e) {
            String id = object.getKind() + " " + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
            var denied = PermissionDenied.of(e);
            String message = denied.isPresent() ? doing + " forbidden: " + denied.get().describe()
                    : doing + " failed: " + e.getMessage();
            LOG.debug("{} (deleted): {}", id, message, e);
            LOG.warn("{} (deleted): {}", id, message);
            events.warning(object, denied.isPresent() ? CONDITION : "CleanupFailed", message);
        }
    }

    /** The same for a Cleaner: the finalizer stays until the refused call succeeds. */
    public static <R extends HasMetadata> DeleteControl cleanup(R primary, Context<R> context, EventRecorder.Lazy events,
                                                                Function<R, List<Condition>> conditions,
                                                                Supplier<DeleteControl> cleanup) {
        try {
            return cleanup.get();
        } catch (RuntimeException e) {
            PermissionDenied denied = PermissionDenied.of(e).orElseThrow(() -> e);
            report(context.getClient(), events.of(context.getClient()), primary, conditions.apply(primary), "cleanup", denied, e);
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(RETRY_MILLIS);
        }
    }

    /**
     * Removes a PermissionDenied or ReconcileError condition once a reconcile goes through again (reads the
     * object fresh: rare).
     */
    private static <R extends HasMetadata> void clearIfSet(KubernetesClient client, R primary, Function<R, List<Condition>> conditions) {
        List<String> set = List.of(CONDITION, StatusWriter.ERROR_CONDITION).stream()
                .filter(t -> Conditions.isTrue(conditions.apply(primary), t)).toList();
        if (set.isEmpty()) {
            return;
        }
        try {
            @SuppressWarnings("unchecked")
            R fresh = (R) client.resource(primary).get();
            if (fresh == null) {
                return;
            }
            List<Condition> kept = conditions.apply(fresh);
            for (String t : set) kept = Conditions.remove(kept, t);
            patchConditions(client, fresh, kept);
            LOG.info("{} {}/{}: {} cleared", primary.getKind(), primary.getMetadata().getNamespace(),
                    primary.getMetadata().getName(), String.join(", ", set));
        } catch (KubernetesClientException e) {
            LOG.debug("could not clear the {} condition", set, e);
        }
    }

    private static void patchConditions(KubernetesClient client, HasMetadata object, List<Condition> conditions) {
        // A merge patch of the conditions alone: the status may be missing or half-built at this point.
        Map<String, Object> patch = Map.of("status", Map.of("conditions", conditions.stream().map(PermissionReporter::asMap).toList()));
        client.genericKubernetesResources(object.getApiVersion(), object.getKind())
                .inNamespace(object.getMetadata().getNamespace()).withName(object.getMetadata().getName())
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), client.getKubernetesSerialization().asJson(patch));
    }

    private static Map<String, Object> asMap(Condition c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", c.getType());
        m.put("status", c.getStatus());
        m.put("reason", c.getReason());
        m.put("message", c.getMessage());
        m.put("lastTransitionTime", c.getLastTransitionTime());
        if (c.getObservedGeneration() != null) {
            m.put("observedGeneration", c.getObservedGeneration());
        }
        return m;
    }
}
