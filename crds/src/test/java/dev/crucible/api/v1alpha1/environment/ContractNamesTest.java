package dev.crucible.api.v1alpha1.environment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.contract.DetectorNames;
import dev.crucible.contract.TestFrameworks;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The CRD's enums carry every name of the contract's lists, and no other (the sidecar checks specs by the same lists). */
class ContractNamesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void hackDetectorsAreTheContractsDetectorNames() {
        assertThat(Arrays.stream(HackDetector.values()).map(ContractNamesTest::wire)).containsExactlyInAnyOrderElementsOf(DetectorNames.ALL);
    }

    @Test
    void testFrameworksAreTheContractsFrameworkNames() {
        assertThat(Arrays.stream(TestFramework.values()).map(ContractNamesTest::wire)).containsExactlyInAnyOrderElementsOf(TestFrameworks.ALL);
    }

    private static String wire(Enum<?> e) {
        try {
            return JSON.writeValueAsString(e).replace("\"", "");
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
