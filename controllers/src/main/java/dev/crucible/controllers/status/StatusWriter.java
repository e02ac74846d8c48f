package dev.crucible.controllers.status;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.util.function.Supplier;

/**
 * The one way the reconcilers write status: a server-side apply of the status subresource holding
 * only name, namespace and the status (so the operator owns status fields and never spec), with the
 * result cached, so an event racing the write cannot show the reconciler the old status.
 */
public final class StatusWriter {
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
        PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(resource, patch, context);
    }
}
