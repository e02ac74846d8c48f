package dev.crucible.controllers.rollout;

/**
 * The shell the workspace-init container runs to fill the workspace volume from the image's directory,
 * with the same guarantee as a local run: the agent gets a fresh one-commit git repository of the task's
 * tree (fixed author, committer, date and message, so a stable commit id; no other refs, reflog, remote,
 * hooks or objects of other commits). Every {@code .git} of the image is dropped; with
 * {@code spec.source.history: ancestors} the image's HEAD ancestry is fetched into the new repository
 * instead, nothing beyond it. An image without git gets the files and no repository at all.
 * The pristine copy grading trusts is the image's files, without any {@code .git}.
 */
final class WorkspaceInitScript {
    /** The volumes the init container mounts. */
    static final String WORKSPACE = "/mnt/workspace";
    static final String PRISTINE = "/mnt/pristine";

    private WorkspaceInitScript() {}

    /** Fills the workspace and the pristine copy from {@code $SRC} (the image's directory at mountPath). */
    static String fill(String history) {
        boolean ancestors = "ancestors".equals(history);
        return "if [ -d \"$SRC\" ]; then "
                + copyInto(WORKSPACE) + "cd " + WORKSPACE + "; keep=; "
                + (ancestors
                        ? "if [ -d .git ] && command -v git >/dev/null 2>&1 && keep=$(git rev-parse --verify -q 'HEAD^{commit}'); then "
                                + "mv .git " + PRISTINE + "/.crucible-image-git; else keep=; fi; "
                        : "")
                + "find . -name .git -prune -exec rm -rf {} +; "
                + "if command -v git >/dev/null 2>&1; then " + taskRepository() + "fi; "
                + "rm -rf " + PRISTINE + "/.crucible-image-git; "
                + copyInto(PRISTINE) + "find " + PRISTINE + " -name .git -prune -exec rm -rf {} +; "
                + "fi";
    }

    /** The pristine copy only (a branch restored from a snapshot brings its own workspace). */
    static String pristineOnly() {
        return "if [ -d \"$SRC\" ]; then " + copyInto(PRISTINE) + "find " + PRISTINE + " -name .git -prune -exec rm -rf {} +; fi";
    }

    /**
     * Copies $SRC's entries (not $SRC itself) into {@code dir}. {@code cp -a "$SRC"/. dir/} would also
     * copy the times of "." onto the volume's root, which a non-root container does not own: on a real
     * kubelet that failed with "preserving times for '/mnt/workspace/.': Operation not permitted".
     * (A loop, not find -exec, so a failing cp still stops the script under set -e.)
     */
    private static String copyInto(String dir) {
        return "for f in \"$SRC\"/* \"$SRC\"/.[!.]* \"$SRC\"/..?*; do { [ -e \"$f\" ] || [ -L \"$f\" ]; } || continue; "
                + "cp -a \"$f\" " + dir + "/; done; ";
    }

    /** In the workspace folder: a fresh repository holding the task commit ($keep's ancestry, or one commit of the files). */
    private static String taskRepository() {
        // safe.directory: the volume roots are root-owned emptyDirs and this runs as the image's user, so
        // git refuses them as "dubious ownership" (found on a real kubelet); set for this script only.
        return "export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 "
                + "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' "
                + "GIT_AUTHOR_NAME=Crucible GIT_AUTHOR_EMAIL=task@crucible.invalid GIT_AUTHOR_DATE=2000-01-01T00:00:00+0000 "
                + "GIT_COMMITTER_NAME=Crucible GIT_COMMITTER_EMAIL=task@crucible.invalid GIT_COMMITTER_DATE=2000-01-01T00:00:00+0000; "
                + "git init -q --template= .; git symbolic-ref HEAD refs/heads/main; git config core.hooksPath /dev/null; "
                + "git config core.logAllRefUpdates false; git config gc.auto 0; "
                + "if [ -n \"$keep\" ]; then "
                + "git fetch -q --update-head-ok --no-tags " + PRISTINE + "/.crucible-image-git \"$keep:refs/heads/main\"; git reset -q; "
                + "git gc -q --prune=now; "
                + "else git add -A; git commit -q --no-verify --no-gpg-sign --allow-empty -m task; fi; "
                + "rm -f .git/FETCH_HEAD .git/COMMIT_EDITMSG; ";
    }
}
