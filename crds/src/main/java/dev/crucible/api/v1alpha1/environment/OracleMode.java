package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.crucible.contract.OracleModes;

/** Values from the contract's {@link OracleModes#ORACLE}: how pytest and unittest suites are graded. */
public enum OracleMode {
    @JsonProperty(OracleModes.AUTO) AUTO,
    @JsonProperty(OracleModes.ISOLATED) ISOLATED,
    @JsonProperty(OracleModes.IN_PROCESS) IN_PROCESS
}
