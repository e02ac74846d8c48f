package dev.crucible.contract;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How a verification result becomes a reward: the one definition the CRD, the sidecar's spec check, its grading and
 * the reward floor share. Written in specs and results in lower case ({@link #wire()}).
 */
public enum RewardMode {
    /** 1 when every required test passes, else 0. */
    @JsonProperty("binary") BINARY,
    /** Fraction of required tests that pass. */
    @JsonProperty("fraction") FRACTION,
    /** CodeRL: -1 does not build, -0.6 runtime error, -0.3 a test fails, +1 all pass. */
    @JsonProperty("coderl") CODERL,
    /** Weighted sum of composite components. */
    @JsonProperty("weighted") WEIGHTED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode written {@code s}, or null when it names none. */
    public static RewardMode of(String s) {
        for (RewardMode m : values()) {
            if (m.wire().equals(s)) return m;
        }
        return null;
    }

    /** The mode written {@code s}; the default ({@link SpecDefaults#REWARD_MODE}) when unset or unknown. */
    public static RewardMode orDefault(String s) {
        RewardMode m = of(s);
        return m != null ? m : of(SpecDefaults.REWARD_MODE);
    }

    /** Every mode as written, for error messages. */
    public static List<String> wireNames() {
        return Arrays.stream(values()).map(RewardMode::wire).toList();
    }

    /** The lowest reward of this mode, which a counted finding floors the reward to: -1 for coderl, else 0. */
    public double floor() {
        return this == CODERL ? -1.0 : 0.0;
    }
}
