package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The words manifests and results use: each enum's wire name, and the defaults that must be one of them. */
class VocabularyTest {

    @Test
    void policyActionsReadAndWriteTheirManifestNames() throws Exception {
        ObjectMapper json = new ObjectMapper();
        for (PolicyAction a : PolicyAction.values()) {
            assertThat(json.writeValueAsString(a)).isEqualTo("\"" + a.wire() + "\"");
            assertThat(json.readValue("\"" + a.wire() + "\"", PolicyAction.class)).isEqualTo(a);
            assertThat(PolicyAction.of(a.wire())).isEqualTo(a);
        }
        assertThat(PolicyAction.of("record")).as("a finding's record action is not a policy").isNull();
        assertThat(PolicyAction.of(SpecDefaults.HACK_POLICY_ACTION)).isEqualTo(PolicyAction.FLAG);
    }

    @Test
    void verdictsAndWhichOfThemAreGrades() {
        assertThat(Verdict.of("pass")).isEqualTo(Verdict.PASS);
        assertThat(Verdict.of("PASS")).isNull();
        assertThat(Verdict.graded("fail")).isTrue();
        assertThat(Verdict.graded("hacked")).isTrue();
        assertThat(Verdict.graded("error")).isFalse();
        assertThat(Verdict.graded(null)).isFalse();
    }
}
