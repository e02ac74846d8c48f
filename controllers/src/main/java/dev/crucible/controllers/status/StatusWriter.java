package dev.crucible.controllers.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one way the reconcilers write status: a server-side apply of the status subresource holding
 * only name, namespace and the status (so the operator owns status fields and never spec), with the
 * result cached, so an event racing the write cannot show the reconciler the old status. A reconcile
 * that throws ends up in {@link #errorStatus}, every reconciler's {@code updateErrorStatus}.
 */
public final class StatusWriter {
    /** Set while reconciles of the object fail; removed by the next one that goes through. */
    public static final String ERROR_CONDITION = "ReconcileError";

    private StatusWriter() {
    }

    /** Writes {@code status} when it differs from the stored one; returns whether it wrote. */
    public static <S, R extends CustomResource<?, S>> boolean writeIfChanged(R resource, S status, Supplier<R> empty,
                                                                             Context<R> context) {
        if (StatusComparison.same(resource.getStatus(), status)) {
            return false;
        }
        write(resource, status, empty, context);
        return true;
    }

    public static <S, R extends CustomResource<?, S>> void write(R resource, S status, Supplier<R> empty,
                                                                 Context<R> context) {
        R patch = empty.get();
        patch.setMetadata(new ObjectMetaBuilder().withName(resource.getMetadata().getName())
                .withNamespace(resource.getMetadata().getNamespace()).build());
        patch.setStatus(status);
        try {
            PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(resource, patch, context);
        } catch (KubernetesClientException e) {
            // Deleted while this reconcile ran (Rollouts carry no finalizer): nothing left to describe, and no
            // error to count or retry; the delete event does the rest.
            if (e.getCode() != 404) throw e;
        }
    }

    /**
     * What the reconcilers' {@code updateErrorStatus} does: the failure as a {@link #ERROR_CONDITION} condition
     * (reason {@code ApiError<code>} or the exception's kind), a Warning Event and one log line instead of the
     * SDK's trace on every retry (the same message is reported once); the SDK keeps retrying. An RBAC refusal is PermissionReporter's.
     */
    public static <R extends CustomResource<?, ?>> ErrorStatusUpdateControl<R> errorStatus(R resource, Context<R> context, Exception e,
                                                                                        EventRecorder.Lazy events,
                                                                                        Function<R, List<Condition>> conditions) {
        String reason = e instanceof KubernetesClientException k ? "ApiError" + k.getCode() : e.getClass().getSimpleName();
        String first = e.getMessage() == null ? e.getClass().getName() : e.getMessage().lines().findFirst().orElse("");
        PermissionReporter.report(context.getClient(), events.of(context.getClient()), resource, conditions.apply(resource),
                ERROR_CONDITION, reason, "reconcile failed: " + first, e);
        return ErrorStatusUpdateControl.noStatusUpdate();
    }
}
