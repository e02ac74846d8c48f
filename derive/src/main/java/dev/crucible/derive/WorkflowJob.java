package dev.crucible.derive;

import java.util.List;
import java.util.Map;

/**
 * One job of a workflow, values as written.
 *
 * @param matrix          {@code strategy.matrix} as plain data (a Map, or a String when it is an expression), null if none
 * @param runsOn          {@code runs-on} as plain data (String, List or Map)
 * @param uses            set when the job calls a reusable workflow instead of having steps
 * @param containerImage  {@code container:} image, or null
 * @param services        service container names to images
 */
record WorkflowJob(String id, String name, int line, Object runsOn, Map<String, String> env, RunDefaults defaults,
        Object matrix, int matrixLine, String uses, String ifCondition, String containerImage,
        Map<String, String> services, List<String> needs, String timeoutMinutes, List<WorkflowStep> steps) {

    /** How a person would call this job in a message. */
    String label() {
        return name != null && !name.equals(id) ? id + " (" + name + ")" : id;
    }
}
