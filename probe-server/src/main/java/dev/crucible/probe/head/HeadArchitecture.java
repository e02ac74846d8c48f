package dev.crucible.probe.head;

import java.util.Locale;

/** The probe head families of PROPEL: linear, one-hidden-layer MLP, and a deeper MLP (SWE sweep). */
public enum HeadArchitecture {
    LINEAR(new int[0]),
    MLP(new int[] {64}),
    DEEP_MLP(new int[] {64, 32});

    private final int[] hidden;

    HeadArchitecture(int[] hidden) {
        this.hidden = hidden;
    }

    /** Hidden layer widths used when training a head of this family. */
    public int[] hidden() {
        return hidden.clone();
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static HeadArchitecture parse(String raw) {
        String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (HeadArchitecture a : values()) {
            if (a.id().equals(s)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown head architecture '" + raw
                + "'; expected linear, mlp or deep_mlp");
    }
}
