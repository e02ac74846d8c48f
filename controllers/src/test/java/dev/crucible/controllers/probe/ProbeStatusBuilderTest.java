package dev.crucible.controllers.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.api.v1alpha1.probe.ProbeModelStatus;
import dev.crucible.api.v1alpha1.probe.TrainingMetrics;
import dev.crucible.controllers.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Phase and conditions from the Deployment's status and the training report. */
class ProbeStatusBuilderTest {

    static final Instant NOW = Instant.parse("2026-11-22T03:00:00Z");

    static Deployment deployment(int replicas, int ready, int updated) {
        return new DeploymentBuilder().withNewMetadata().withName("swe-probe").withGeneration(1L).endMetadata()
                .withNewStatus().withObservedGeneration(1L).withReplicas(replicas).withReadyReplicas(ready)
                .withAvailableReplicas(ready).withUpdatedReplicas(updated).endStatus().build();
    }

    static ProbeModelStatus build(ProbeModel p, Deployment d) {
        return ProbeStatusBuilder.build(p, d, TrainingReport.absent(), null, NOW);
    }

    static Condition condition(ProbeModelStatus s, String type) {
        return Conditions.find(s.conditions, type);
    }

    @Test
    void pendingUntilTheDeploymentExists() {
        var s = build(ProbeFixtures.trajectoryProbe("swe"), null);
        assertThat(s.phase).isEqualTo("Pending");
        assertThat(s.observedGeneration).isEqualTo(3L);
        assertThat(s.endpoint).isEqualTo("http://swe-probe.ns.svc:8080");
        assertThat(s.replicas).isZero();
        assertThat(condition(s, ConditionTypes.READY).getStatus()).isEqualTo("False");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getStatus()).isEqualTo("True");
        assertThat(condition(s, ConditionTypes.READY).getObservedGeneration()).isEqualTo(3L);
    }

    @Test
    void noReadyReplicaIsPending() {
        var s = build(ProbeFixtures.trajectoryProbe("swe"), deployment(2, 0, 2));
        assertThat(s.phase).isEqualTo("Pending");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("ReplicasNotReady");
        assertThat(condition(s, ConditionTypes.READY).getMessage()).startsWith("0/2 replicas ready");
    }

    @Test
    void allReadyIsReady() {
        var s = build(ProbeFixtures.trajectoryProbe("swe"), deployment(2, 2, 2));
        assertThat(s.phase).isEqualTo("Ready");
        assertThat(s.readyReplicas).isEqualTo(2);
        assertThat(s.replicas).isEqualTo(2);
        assertThat(condition(s, ConditionTypes.READY).getStatus()).isEqualTo("True");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("AllReplicasReady");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getStatus()).isEqualTo("False");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getReason()).isEqualTo("RolloutComplete");
    }

    @Test
    void readyWhileANewSpecRollsOut() {
        // Old replicas still serve: Ready stays True, Progressing says a rollout is under way.
        var d = deployment(3, 2, 1);
        var s = build(ProbeFixtures.trajectoryProbe("swe"), d);
        assertThat(s.phase).isEqualTo("Ready");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getStatus()).isEqualTo("True");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getReason()).isEqualTo("RollingOut");
    }

    @Test
    void someReadyIsDegraded() {
        var s = build(ProbeFixtures.trajectoryProbe("swe"), deployment(2, 1, 2));
        assertThat(s.phase).isEqualTo("Degraded");
        assertThat(condition(s, ConditionTypes.READY).getStatus()).isEqualTo("False");
        assertThat(condition(s, ConditionTypes.READY).getMessage()).contains("1/2").contains("reduced capacity");
    }

    @Test
    void progressDeadlineWithNothingReadyFails() {
        var d = deployment(2, 0, 2);
        d.getStatus().getConditions().add(new DeploymentConditionBuilder().withType("Progressing").withStatus("False")
                .withReason("ProgressDeadlineExceeded").withMessage("ReplicaSet \"swe-probe-1\" has timed out progressing.")
                .build());
        var s = build(ProbeFixtures.trajectoryProbe("swe"), d);
        assertThat(s.phase).isEqualTo("Failed");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("ProgressDeadlineExceeded");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getStatus()).isEqualTo("False");
        assertThat(condition(s, ConditionTypes.READY).getMessage()).contains("timed out");
    }

    @Test
    void replicaFailureWithSomeReadyIsDegraded() {
        var d = deployment(1, 1, 1);
        d.getStatus().getConditions().add(new DeploymentConditionBuilder().withType("ReplicaFailure").withStatus("True")
                .withReason("FailedCreate").withMessage("exceeded quota: gpu").build());
        var s = build(ProbeFixtures.trajectoryProbe("swe"), d);
        assertThat(s.phase).isEqualTo("Degraded");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("ReplicaFailure");
        assertThat(condition(s, ConditionTypes.READY).getMessage()).contains("exceeded quota");
    }

    @Test
    void refusedObjectsFail() {
        var s = ProbeStatusBuilder.build(ProbeFixtures.trajectoryProbe("swe"), null, TrainingReport.absent(),
                "Deployment is invalid: spec.template...", NOW);
        assertThat(s.phase).isEqualTo("Failed");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("DeploymentRejected");
    }

    @Test
    void zeroReplicasIsPendingAndNotProgressing() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        p.getSpec().serving.replicas = 0;
        var s = build(p, deployment(0, 0, 0));
        assertThat(s.phase).isEqualTo("Pending");
        assertThat(condition(s, ConditionTypes.READY).getReason()).isEqualTo("ScaledToZero");
        assertThat(condition(s, ConditionTypes.PROGRESSING).getStatus()).isEqualTo("False");
    }

    @Test
    void trainingMetricsComeFromTheReport() {
        var cm = new ConfigMapBuilder().withNewMetadata().withName("swe-training-report").endMetadata()
                .addToData("report.json", """
                        {"metrics":{"balancedAccuracy":0.71,"auc":0.78,"f1":0.4,"ece":0.05,"spearman":0.3,
                        "rewardVariance":1.2,"selected":{"layer":2,"pooling":"mean_last_half","architecture":"mlp"},
                        "trainedAt":"2026-11-21T10:00:00Z"}}""").build();
        var s = ProbeStatusBuilder.build(ProbeFixtures.trajectoryProbe("swe"), deployment(2, 2, 2),
                TrainingReport.from(cm), null, NOW);
        assertThat(s.training.balancedAccuracy).isEqualTo(0.71);
        assertThat(s.training.selected.layer).isEqualTo(2);
        assertThat(condition(s, ProbeStatusBuilder.TRAINED).getStatus()).isEqualTo("True");
        assertThat(condition(s, ProbeStatusBuilder.TRAINED).getMessage()).contains("0.71").contains("mlp");

        var untrained = build(ProbeFixtures.trajectoryProbe("swe"), null);
        assertThat(untrained.training).isNull();
        assertThat(condition(untrained, ProbeStatusBuilder.TRAINED).getReason()).isEqualTo("NotTrained");
        assertThat(condition(untrained, ProbeStatusBuilder.TRAINED).getMessage()).contains("swe-training-report");
    }

    @Test
    void anInvalidReportKeepsTheLastGoodMetrics() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        p.setStatus(new ProbeModelStatus());
        p.getStatus().training = new TrainingMetrics();
        p.getStatus().training.balancedAccuracy = 0.66;
        var bad = new ConfigMapBuilder().withNewMetadata().withName("swe-training-report").endMetadata()
                .addToData("report.json", "{not json").build();
        var s = ProbeStatusBuilder.build(p, null, TrainingReport.from(bad), null, NOW);
        assertThat(s.training.balancedAccuracy).isEqualTo(0.66);
        assertThat(condition(s, ProbeStatusBuilder.TRAINED).getReason()).isEqualTo("InvalidReport");
    }

    @Test
    void transitionTimeHoldsWhileTheStatusHolds() {
        ProbeModel p = ProbeFixtures.trajectoryProbe("swe");
        p.setStatus(build(p, deployment(2, 2, 2)));
        var later = ProbeStatusBuilder.build(p, deployment(2, 2, 2), TrainingReport.absent(), null, NOW.plusSeconds(600));
        assertThat(condition(later, ConditionTypes.READY).getLastTransitionTime()).isEqualTo("2026-11-22T03:00:00Z");
        p.setStatus(later);
        var degraded = ProbeStatusBuilder.build(p, deployment(2, 1, 2), TrainingReport.absent(), null, NOW.plusSeconds(900));
        assertThat(condition(degraded, ConditionTypes.READY).getLastTransitionTime()).isEqualTo("2026-11-22T03:15:00Z");
    }
}
