package dev.crucible.controllers;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reconcilers drive snapshot agents through the small snapshot-client module only: the agent's
 * server, engine, CRIU and freezer classes are not on the class path, so no main class can import
 * them. A dependency that brings the whole agent back fails here.
 */
class DependencyRulesTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "dev.crucible.snapshot.agent.AgentServer",
            "dev.crucible.snapshot.engine.SnapshotEngine",
            "dev.crucible.snapshot.criu.CriuRunner",
            "dev.crucible.snapshot.freeze.Freezer"})
    void theSnapshotAgentItselfIsNotOnTheClassPath(String className) {
        assertThatThrownBy(() -> Class.forName(className)).isInstanceOf(ClassNotFoundException.class);
    }
}
