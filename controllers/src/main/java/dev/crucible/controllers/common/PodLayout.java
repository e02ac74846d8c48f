package dev.crucible.controllers.common;

/**
 * Names and paths every rollout pod is laid out with: volumes, mount points and files that the pod
 * builder writes and the snapshot and probe code find again. One place, so no package reaches into
 * another's builder for them.
 */
public final class PodLayout {
    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    public static final String WORKSPACE_VOLUME = "workspace";
    /** Left in a restored workspace by the snapshot agent once the snapshot's files (and patches) are in. */
    public static final String RESTORED_MARKER = ".crucible/restored";
    public static final String PRISTINE_VOLUME = "pristine";
    public static final String CONFIG_VOLUME = "crucible-config";
    public static final String RUN_VOLUME = "crucible-run";
    /** The sidecar's private scratch (pristine snapshot, grading trees): never mounted in the agent. */
    public static final String VERIFIER_TMP_VOLUME = "crucible-verifier-tmp";
    /** The environment API's bearer token (the Rollout's Secret): mounted into the sidecar only. */
    public static final String API_TOKEN_VOLUME = "crucible-env-api-token";
    public static final String API_TOKEN_PATH = "/crucible/secrets/env-api";
    /**
     * Shared by the sidecar and the grading container: the sidecar's socket and the grading trees, built
     * there at grading time. The oracle-worker container mounts only its {@code oracle-trees} folder (tree
     * copies without their test files), the init container makes that folder. Never mounted in the agent container.
     */
    public static final String GRADING_VOLUME = "crucible-grading";
    /** The grading container's own /tmp (its root file system is read-only). */
    public static final String GRADING_TMP_VOLUME = "crucible-grading-tmp";
    /**
     * The grading container runs as the pod's uid plus this: graded code cannot write the grading trees
     * and support files the sidecar (the pod's uid) leaves read-only for others, nor replace its files in
     * the sticky results folder.
     */
    public static final long GRADER_UID_OFFSET = 1;
    /** Written by the agent container's wrapper when the agent command ends; the sidecar then grades. */
    public static final String AGENT_EXIT_FILE = dev.crucible.contract.RunFolder.AGENT_EXIT;
    public static final String PRISTINE_PATH = "/crucible/pristine";
    public static final String CONFIG_PATH = "/crucible/config";
    public static final String RUN_PATH = dev.crucible.contract.RunFolder.PATH;
    public static final String TASK_FILE = "/crucible/task.md";
    public static final String TERMINATION_LOG = "/dev/termination-log";

    private PodLayout() {
    }
}
