package dev.crucible.derive;

import java.util.Map;

/**
 * A GitHub Actions workflow as far as derivation needs it. Values are kept as written, with their
 * {@code ${{ }}} expressions unresolved, because they can only be resolved once a job and a matrix
 * combination are chosen.
 *
 * @param file     the workflow path as the user named it (used in every message)
 * @param env      workflow-level {@code env:}
 * @param defaults workflow-level {@code defaults.run}
 * @param jobs     jobs by id, in file order
 * @param jobsLine line of the {@code jobs:} key
 */
record Workflow(String file, Map<String, String> env, RunDefaults defaults, Map<String, WorkflowJob> jobs,
        int jobsLine) {
}
