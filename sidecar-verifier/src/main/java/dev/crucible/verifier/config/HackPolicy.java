package dev.crucible.verifier.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** What happens on a finding: flag (record only), terminate (end the episode, reward floored) or revert. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HackPolicy(String action, List<String> detectors) {
    public static final HackPolicy DEFAULT = new HackPolicy("flag", List.of());

    public HackPolicy {
        action = action == null ? "flag" : action;
        detectors = detectors == null ? List.of() : List.copyOf(detectors);
    }

    public boolean enabled(String detector) { return detectors.isEmpty() || detectors.contains(detector); }
}
