package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.probe.ProbeModelStatus;
import dev.crucible.controllers.apply.ServerSideApply;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.status.Conditions;
import dev.crucible.controllers.status.EventRecorder;
import dev.crucible.controllers.status.PermissionReporter;
import dev.crucible.controllers.status.StatusWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimited;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reconciles a ProbeModel: its dependents ({@link ProbeDependents}: the probe.json ConfigMap, the Service and
 * the Deployment, applied server-side when they no longer match, so a spec change reaches the objects and
 * fields nobody else owns stay untouched) → observe the Deployment and the training report → write status
 * when it changed. Everything it creates carries a
 * controller owner reference, so the garbage collector removes it with the ProbeModel; no finalizer
 * is needed (one would only block deletion while the operator is down).
 */
@ControllerConfiguration(name = ProbeModelReconciler.NAME, fieldManager = ServerSideApply.FIELD_MANAGER,
        // An unlabelled training-report ConfigMap raises no event; it is still read within this interval.
        maxReconciliationInterval = @MaxReconciliationInterval(interval = 10, timeUnit = TimeUnit.MINUTES))
@GradualRetry(maxAttempts = 10, initialInterval = 500, intervalMultiplier = 2.0, maxInterval = 60_000)
@RateLimited(maxReconciliations = 5, within = 1, unit = TimeUnit.SECONDS)
public class ProbeModelReconciler implements Reconciler<ProbeModel> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProbeModelReconciler.class);


    public static final String NAME = "probemodel";
    /** Where its conditions are (the status may not exist yet), for the error and permission reports. */
    private static final Function<ProbeModel, List<Condition>> CONDITIONS = r -> r.getStatus() == null ? null : r.getStatus().conditions;
    public static final String FIELD_MANAGER = ServerSideApply.FIELD_MANAGER;
    static final long REQUEUE_NOT_READY_MILLIS = 30_000;
    static final long REQUEUE_FAILED_MILLIS = 60_000;

    private final ControllerMetrics metrics;
    private final ProbeDependents.Dependent<ConfigMap> configMap = ProbeDependents.configMap();
    private final ProbeDependents.Dependent<Service> service = ProbeDependents.service();
    private final ProbeDependents.Dependent<Deployment> deployment;
    private final EventRecorder.Lazy events = new EventRecorder.Lazy();

    /** @param serverImage probe server image when a ProbeModel names none (Helm: probes.serverImage) */
    public ProbeModelReconciler(OperatorSettings settings, ControllerMetrics metrics, String serverImage) {
        this.metrics = metrics;
        this.deployment = ProbeDependents.deployment(new ProbeDeploymentBuilder(settings, serverImage));
    }

    @Override
    public List<EventSource<?, ProbeModel>> prepareEventSources(EventSourceContext<ProbeModel> context) {
        return List.of(configMap.eventSource(context).orElseThrow(), service.eventSource(context).orElseThrow(),
                deployment.eventSource(context).orElseThrow());
    }

    /** Our probe.json by owner reference; a training report (written by others) by its name. */
    static SecondaryToPrimaryMapper<ConfigMap> configMapToProbe() {
        SecondaryToPrimaryMapper<ConfigMap> owners = Mappers.fromOwnerReferences(ProbeModel.class);
        return cm -> {
            Set<ResourceID> ids = new HashSet<>(owners.toPrimaryResourceIDs(cm));
            String name = cm.getMetadata().getName();
            if (name.endsWith(ProbeNames.REPORT_SUFFIX) && name.length() > ProbeNames.REPORT_SUFFIX.length()) {
                ids.add(new ResourceID(name.substring(0, name.length() - ProbeNames.REPORT_SUFFIX.length()),
                        cm.getMetadata().getNamespace()));
            }
            return ids;
        };
    }

    /** A failed reconcile as a ReconcileError condition and Event (StatusWriter.errorStatus); the SDK retries. */
    @Override
    public ErrorStatusUpdateControl<ProbeModel> updateErrorStatus(ProbeModel resource, Context<ProbeModel> context, Exception e) {
        return StatusWriter.errorStatus(resource, context, e, events, CONDITIONS);
    }

    @Override
    public UpdateControl<ProbeModel> reconcile(ProbeModel probe, Context<ProbeModel> context) {
        return PermissionReporter.reconcile(probe, context, events, CONDITIONS,
                () -> metrics.timeReconcile(NAME, () -> reconcileObserved(probe, context)));
    }

    private UpdateControl<ProbeModel> reconcileObserved(ProbeModel probe, Context<ProbeModel> context) {
        KubernetesClient client = context.getClient();
        Deployment deployment = context.getSecondaryResource(Deployment.class).orElse(null);
        String rejected = null;
        try {
            // probe.json before the Deployment: its pods mount it, and its hash is in their template.
            configMap.reconcile(probe, context);
            service.reconcile(probe, context);
            deployment = this.deployment.reconcile(probe, context).getSingleResource().orElse(deployment);
        } catch (KubernetesClientException e) {
            // Refused (invalid, forbidden, over quota): retrying at once would not help; say why in status.
            if (e.getCode() != 400 && e.getCode() != 403 && e.getCode() != 422) {
                throw e;
            }
            rejected = dev.crucible.controllers.status.ApiErrors.message(e);
        }
        TrainingReport report = TrainingReport.from(reportConfigMap(probe, context));
        ProbeModelStatus old = probe.getStatus();
        ProbeModelStatus status = ProbeStatusBuilder.build(probe, deployment, report, rejected, Instant.now());
        if (dev.crucible.controllers.status.StatusWriter.writeIfChanged(probe, status, ProbeModel::new, context)) {
            recordTransition(probe, old, status, client);
        }
        UpdateControl<ProbeModel> control = UpdateControl.noUpdate();
        // Deployment events drive progress; the reschedule is a safety net while nothing serves fully.
        if (ProbeStatusBuilder.FAILED.equals(status.phase)) {
            control.rescheduleAfter(REQUEUE_FAILED_MILLIS);
        } else if (!ProbeStatusBuilder.READY.equals(status.phase) && ProbeStatusBuilder.desiredReplicas(probe) > 0) {
            control.rescheduleAfter(REQUEUE_NOT_READY_MILLIS);
        }
        return control;
    }

    /** From the informer when labelled; otherwise one GET (a person may have run kubectl create configmap). */
    private static ConfigMap reportConfigMap(ProbeModel probe, Context<ProbeModel> context) {
        String name = ProbeNames.reportConfigMapName(probe.getMetadata().getName());
        for (ConfigMap cm : context.getSecondaryResources(ConfigMap.class)) {
            if (name.equals(cm.getMetadata().getName())) {
                return cm;
            }
        }
        try {
            return context.getClient().configMaps().inNamespace(probe.getMetadata().getNamespace()).withName(name).get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403) {
                return null; // a namespace-scoped install may not read unlabelled ConfigMaps: the label is the way then
            }
            throw e;
        }
    }

    private void recordTransition(ProbeModel probe, ProbeModelStatus old, ProbeModelStatus status, KubernetesClient client) {
        String oldPhase = old == null ? null : old.phase;
        if (!Objects.equals(oldPhase, status.phase)) {
            LOG.info("ProbeModel {}/{}: {} → {}", probe.getMetadata().getNamespace(), probe.getMetadata().getName(), oldPhase, status.phase);
        }
        var ready = Conditions.find(status.conditions, ConditionTypes.READY);
        if (!Objects.equals(oldPhase, status.phase) && ready != null) {
            switch (status.phase) {
                case ProbeStatusBuilder.READY -> events.of(client).normal(probe, ready.getReason(),
                        "serving at " + status.endpoint + ": " + ready.getMessage());
                case ProbeStatusBuilder.DEGRADED, ProbeStatusBuilder.FAILED ->
                        events.of(client).warning(probe, ready.getReason(), ready.getMessage());
                default -> {
                }
            }
        }
        var trained = Conditions.find(status.conditions, ProbeStatusBuilder.TRAINED);
        var wasTrained = old == null ? null : Conditions.find(old.conditions, ProbeStatusBuilder.TRAINED);
        if (trained != null && (wasTrained == null || !Objects.equals(trained.getMessage(), wasTrained.getMessage()))) {
            if (ProbeStatusBuilder.REASON_REPORT_READ.equals(trained.getReason())) {
                events.of(client).normal(probe, "TrainingReportRead", trained.getMessage());
            } else if (ProbeStatusBuilder.REASON_INVALID_REPORT.equals(trained.getReason())) {
                events.of(client).warning(probe, "InvalidTrainingReport", trained.getMessage());
            }
        }
    }

}
