package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** One weighted part of a composite verifier. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Component(String name, Double weight, VerifierSpec verifier) {
    public double weightOrDefault() { return weight == null ? 1.0 : weight; }
}
