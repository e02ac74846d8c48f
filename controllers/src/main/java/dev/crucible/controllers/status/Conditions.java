package dev.crucible.controllers.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Kubernetes-convention conditions: one per type, and lastTransitionTime changes only when the status
 * (True/False/Unknown) changes, so a person can read how long a state has held.
 */
public final class Conditions {

    private Conditions() {
    }

    /** Returns a new list with the condition set; the input is not modified. */
    public static List<Condition> set(List<Condition> current, String type, boolean status, String reason,
                                      String message, Long generation, Instant now) {
        String value = status ? "True" : "False";
        List<Condition> result = new ArrayList<>();
        boolean found = false;
        for (Condition c : current == null ? List.<Condition>of() : current) {
            if (!type.equals(c.getType())) {
                result.add(c);
                continue;
            }
            found = true;
            String transition = value.equals(c.getStatus()) && c.getLastTransitionTime() != null
                    ? c.getLastTransitionTime() : format(now);
            result.add(condition(type, value, reason, message, generation, transition));
        }
        if (!found) {
            result.add(condition(type, value, reason, message, generation, format(now)));
        }
        return result;
    }

    public static List<Condition> remove(List<Condition> current, String type) {
        List<Condition> result = new ArrayList<>(current == null ? List.of() : current);
        result.removeIf(c -> type.equals(c.getType()));
        return result;
    }

    public static Condition find(List<Condition> conditions, String type) {
        if (conditions == null) {
            return null;
        }
        return conditions.stream().filter(c -> Objects.equals(type, c.getType())).findFirst().orElse(null);
    }

    public static boolean isTrue(List<Condition> conditions, String type) {
        Condition c = find(conditions, type);
        return c != null && "True".equals(c.getStatus());
    }

    /** RFC 3339 with seconds, as the API server stores metav1.Time. */
    public static String format(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static Condition condition(String type, String status, String reason, String message, Long generation,
                                       String transition) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                // The API server requires message to be present (it may be empty).
                .withMessage(message == null ? "" : message)
                .withObservedGeneration(generation)
                .withLastTransitionTime(transition)
                .build();
    }
}
