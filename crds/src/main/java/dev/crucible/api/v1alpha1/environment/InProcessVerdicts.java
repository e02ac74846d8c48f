package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.crucible.contract.OracleModes;

/** Values from the contract's {@link OracleModes#IN_PROCESS_VERDICTS}: whether a test the oracle could not split counts. */
public enum InProcessVerdicts {
    @JsonProperty(OracleModes.UNTRUSTED) UNTRUSTED,
    @JsonProperty(OracleModes.TRUSTED) TRUSTED
}
