package dev.crucible.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The Lease names the pod that holds it, so `kubectl get lease` answers "which replica leads". */
class LeaseHolderTest {

    @Test
    void holderIsThePodNameUnlessConfigured() {
        assertThat(OperatorBeans.holder(null, "crucible-operator-7d9f-x2k4p")).isEqualTo("crucible-operator-7d9f-x2k4p");
        assertThat(OperatorBeans.holder("op-a", "crucible-operator-7d9f-x2k4p")).isEqualTo("op-a");
        assertThat(OperatorBeans.holder("", null)).isNull();
    }
}
