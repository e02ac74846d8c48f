package dev.crucible.verifier.config;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** One weighted part of a composite verifier. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Component(String name, Double weight, VerifierSpec verifier) {
    public double weightOrDefault() { return weight == null ? SpecDefaults.COMPONENT_WEIGHT : weight; }
}
