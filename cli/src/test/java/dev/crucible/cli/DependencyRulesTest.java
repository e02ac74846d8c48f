package dev.crucible.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The CLI runs without a cluster: neither the operator framework nor the reconcilers are on its
 * class path (CI derivation is the framework-free derive module). A dependency that brings them back
 * fails here.
 */
class DependencyRulesTest {
    @Test
    void neitherJosdkNorTheControllersAreOnTheClassPath() {
        assertThatThrownBy(() -> Class.forName("io.javaoperatorsdk.operator.api.reconciler.Reconciler"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("dev.crucible.controllers.rollout.RolloutReconciler"))
                .isInstanceOf(ClassNotFoundException.class);
    }
}
