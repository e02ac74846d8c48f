package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.probe.ProbeModelStatus;
import dev.crucible.controllers.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * ProbeModel status from what was observed: the Deployment's status (replicas, readiness, its
 * Progressing and ReplicaFailure conditions), the training report, and whether the API server refused
 * what the operator applied. Phases: Pending (nothing serves yet), Ready (every wanted replica ready),
 * Degraded (serving below the wanted replicas, or a newer spec cannot roll out), Failed (nothing serves
 * and nothing will without a change). Pure: the same inputs give the same status.
 */
public final class ProbeStatusBuilder {
    public static final String PENDING = "Pending";
    public static final String READY = "Ready";
    public static final String DEGRADED = "Degraded";
    public static final String FAILED = "Failed";
    /** Whether status.training holds a report; not a readiness gate (a probe may serve untrained heads). */
    public static final String TRAINED = "Trained";

    public static final String REASON_DEPLOYING = "Deploying";
    public static final String REASON_REJECTED = "DeploymentRejected";
    public static final String REASON_SCALED_TO_ZERO = "ScaledToZero";
    public static final String REASON_NOT_READY = "ReplicasNotReady";
    public static final String REASON_ALL_READY = "AllReplicasReady";
    public static final String REASON_ROLLING_OUT = "RollingOut";
    public static final String REASON_ROLLOUT_COMPLETE = "RolloutComplete";
    public static final String REASON_DEADLINE = "ProgressDeadlineExceeded";
    public static final String REASON_REPLICA_FAILURE = "ReplicaFailure";
    public static final String REASON_REPORT_READ = "ReportRead";
    public static final String REASON_NOT_TRAINED = "NotTrained";
    public static final String REASON_INVALID_REPORT = "InvalidReport";

    private ProbeStatusBuilder() {
    }

    /** What the Ready and Progressing conditions say, with the phase they imply. */
    private record Verdict(String phase, boolean ready, String readyReason, boolean progressing,
                           String progressReason, String message) {
    }

    /**
     * @param deployment the observed (or just applied) Deployment, null when it does not exist
     * @param rejected   why the API server refused the applied objects (4xx), else null
     */
    public static ProbeModelStatus build(ProbeModel probe, Deployment deployment, TrainingReport report,
                                         String rejected, Instant now) {
        ProbeModelStatus old = probe.getStatus();
        Long generation = probe.getMetadata().getGeneration();
        String name = probe.getMetadata().getName();
        int desired = desiredReplicas(probe);
        DeploymentStatus ds = deployment == null ? null : deployment.getStatus();
        int replicas = ds == null || ds.getReplicas() == null ? 0 : ds.getReplicas();
        int ready = ds == null || ds.getReadyReplicas() == null ? 0 : ds.getReadyReplicas();

        ProbeModelStatus s = new ProbeModelStatus();
        s.observedGeneration = generation;
        s.endpoint = ProbeNames.endpoint(name, probe.getMetadata().getNamespace());
        s.replicas = replicas;
        s.readyReplicas = ready;
        Verdict v = verdict(deployment, desired, ready, rejected);
        s.phase = v.phase();
        List<Condition> conditions = old == null || old.conditions == null ? new ArrayList<>() : old.conditions;
        conditions = Conditions.set(conditions, ConditionTypes.READY, v.ready(), v.readyReason(), v.message(), generation, now);
        conditions = Conditions.set(conditions, ConditionTypes.PROGRESSING, v.progressing(), v.progressReason(),
                v.message(), generation, now);
        if (report.metrics() != null) {
            s.training = report.metrics();
            conditions = Conditions.set(conditions, TRAINED, true, REASON_REPORT_READ, describe(report), generation, now);
        } else if (report.error() != null) {
            // Keep the last good metrics: a half-written report must not erase what was measured.
            s.training = old == null ? null : old.training;
            conditions = Conditions.set(conditions, TRAINED, false, REASON_INVALID_REPORT, report.error(), generation, now);
        } else {
            conditions = Conditions.set(conditions, TRAINED, false, REASON_NOT_TRAINED, "no ConfigMap "
                    + ProbeNames.reportConfigMapName(name) + " with " + TrainingReport.KEY
                    + " (crucible probe train writes report.json)", generation, now);
        }
        s.conditions = conditions;
        return s;
    }

    private static Verdict verdict(Deployment deployment, int desired, int ready, String rejected) {
        if (rejected != null) {
            return new Verdict(FAILED, false, REASON_REJECTED, false, REASON_REJECTED, rejected);
        }
        if (deployment == null) {
            return new Verdict(PENDING, false, REASON_DEPLOYING, true, REASON_DEPLOYING, "creating the probe server Deployment");
        }
        if (desired == 0) {
            return new Verdict(PENDING, false, REASON_SCALED_TO_ZERO, false, REASON_SCALED_TO_ZERO,
                    "serving.replicas is 0: nothing serves the endpoint");
        }
        String counts = ready + "/" + desired + " replicas ready";
        DeploymentCondition stuck = condition(deployment, "Progressing", "False");
        DeploymentCondition failure = condition(deployment, "ReplicaFailure", "True");
        if (failure != null || (stuck != null && REASON_DEADLINE.equals(stuck.getReason()))) {
            String reason = failure != null ? REASON_REPLICA_FAILURE : REASON_DEADLINE;
            String why = counts + "; " + (failure != null ? failure.getMessage() : stuck.getMessage());
            if (ready == 0) {
                return new Verdict(FAILED, false, reason, false, reason, why);
            }
            return new Verdict(DEGRADED, ready >= desired, ready >= desired ? REASON_ALL_READY : reason, false, reason,
                    why + " (the current replicas keep serving)");
        }
        boolean rolledOut = rolledOut(deployment, desired);
        String progressReason = rolledOut ? REASON_ROLLOUT_COMPLETE : ready > 0 ? REASON_ROLLING_OUT : REASON_DEPLOYING;
        if (ready >= desired) {
            return new Verdict(READY, true, REASON_ALL_READY, !rolledOut, progressReason, counts);
        }
        if (ready > 0) {
            return new Verdict(DEGRADED, false, REASON_NOT_READY, !rolledOut, progressReason,
                    counts + "; the endpoint serves at reduced capacity");
        }
        return new Verdict(PENDING, false, REASON_NOT_READY, true, progressReason,
                counts + ": pods are scheduling, pulling the image or loading the reference model");
    }

    /** The Deployment controller saw the current spec and every replica runs it, with no old ones left. */
    static boolean rolledOut(Deployment d, int desired) {
        DeploymentStatus ds = d.getStatus();
        if (ds == null) {
            return false;
        }
        Long generation = d.getMetadata().getGeneration();
        boolean observed = generation == null || (ds.getObservedGeneration() != null && ds.getObservedGeneration() >= generation);
        int updated = ds.getUpdatedReplicas() == null ? 0 : ds.getUpdatedReplicas();
        int replicas = ds.getReplicas() == null ? 0 : ds.getReplicas();
        int available = ds.getAvailableReplicas() == null ? 0 : ds.getAvailableReplicas();
        return observed && updated >= desired && replicas == desired && available >= desired;
    }

    static int desiredReplicas(ProbeModel probe) {
        var serving = probe.getSpec().serving;
        return serving == null || serving.replicas == null ? 1 : serving.replicas;
    }

    private static DeploymentCondition condition(Deployment d, String type, String status) {
        if (d.getStatus() == null || d.getStatus().getConditions() == null) {
            return null;
        }
        return d.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus())).findFirst().orElse(null);
    }

    private static String describe(TrainingReport report) {
        var m = report.metrics();
        StringBuilder b = new StringBuilder("balanced accuracy ").append(m.balancedAccuracy);
        if (m.auc != null) {
            b.append(", AUC ").append(m.auc);
        }
        if (m.selected != null) {
            b.append(" (layer ").append(m.selected.layer).append(", ").append(m.selected.pooling)
                    .append(", ").append(m.selected.architecture).append(")");
        }
        if (m.trainedAt != null) {
            b.append(", trained ").append(m.trainedAt);
        }
        return b.toString();
    }
}
