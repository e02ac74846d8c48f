package dev.crucible.controllers.status;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Whether a freshly built status differs from the stored one; unchanged status is never written. */
public final class StatusComparison {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusComparison() {
    }

    public static boolean same(Object stored, Object desired) {
        if (stored == null || desired == null) {
            return stored == desired;
        }
        return JSON.valueToTree(stored).equals(JSON.valueToTree(desired));
    }
}
