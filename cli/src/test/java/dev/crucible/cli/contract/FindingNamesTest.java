package dev.crucible.cli.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.common.HackFinding;
import dev.crucible.contract.VerifierResultJson;
import dev.crucible.verifier.monitor.Finding;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A finding is named alike wherever a user reads one (issue 40.1): a local result.json and the step API (the sidecar's
 * {@link Finding}), the pod's result (the contract's) and the Rollout's status ({@link HackFinding}). The sidecar's
 * called the step {@code stepIndex} while the others said {@code step}.
 */
class FindingNamesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theSidecarsFindingHasTheContractsAndTheStatussNames() {
        Set<String> sidecar = names(JSON.valueToTree(new Finding("d", "high", "p", "e", "t", 3, "flag", "r")));
        Set<String> contract = names(JSON.valueToTree(new VerifierResultJson.Finding("d", "high", "r", "p", "e", "t", 3, "flag")));
        HackFinding h = new HackFinding();
        h.detector = "d"; h.rule = "r"; h.severity = "high"; h.path = "p"; h.evidence = "e"; h.time = "t"; h.step = 3; h.action = "flag";
        Set<String> status = names(JSON.valueToTree(h));
        assertThat(sidecar).as("the sidecar's finding").isEqualTo(contract).contains("step");
        assertThat(status).as("the Rollout status's finding").isEqualTo(contract);
    }

    @Test
    void aResultWrittenBeforeTheRenameStillReads() throws Exception {
        Finding old = JSON.readValue("{\"detector\":\"d\",\"severity\":\"high\",\"evidence\":\"e\",\"stepIndex\":4,\"action\":\"flag\"}", Finding.class);
        assertThat(old.step()).isEqualTo(4);
        assertThat(JSON.writeValueAsString(old)).contains("\"step\":4").doesNotContain("stepIndex");
    }

    private static Set<String> names(JsonNode n) {
        Set<String> out = new TreeSet<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
