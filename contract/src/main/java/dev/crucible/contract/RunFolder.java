package dev.crucible.contract;

import java.util.ArrayList;
import java.util.List;

/**
 * The pod contract for the run folder the agent container and the verifier sidecar share (an emptyDir
 * mounted at {@link #PATH} in both). The sidecar writes {@link #EPISODE_STARTED} once its episode is reset
 * and its hack monitor watches; the agent container's wrapper ({@link #agentWrapper}) starts the agent
 * command only then, so nothing the agent does falls before the monitor's first look, and writes
 * {@link #AGENT_EXIT} when the command ends, so the sidecar knows to grade.
 */
public final class RunFolder {
    public static final String PATH = "/crucible/run";
    /** The agent command's exit status, written by the wrapper when it ends. */
    public static final String AGENT_EXIT = "agent.exit";
    /** Written by the sidecar when the episode runs and the monitor watches (embedded mode). */
    public static final String EPISODE_STARTED = "episode.started";
    /**
     * Written by a warm-pool pod's sidecar once the environment's setup has run ahead of any claim (issue 39);
     * the pod's startup probe waits for it, so the operator claims only pods whose setup is done.
     */
    public static final String SETUP_DONE = "setup.done";
    /**
     * How long the wrapper waits for the sidecar (its JVM start, the reset, the grading container's
     * connection). Past it the agent runs anyway: a sidecar that never started grades nothing, so the
     * rollout fails on its own and an unwatched agent earns no reward.
     */
    public static final int START_WAIT_SECONDS = 300;

    private RunFolder() {}

    /** {@code /bin/sh -c} around {@code command}: wait for the episode, run, record the exit status. */
    public static List<String> agentWrapper(List<String> command) {
        return agentWrapper(command, PATH);
    }

    /** The same around a run folder at {@code runDir} (tests run the wrapper outside a pod). */
    public static List<String> agentWrapper(List<String> command, String runDir) {
        String started = runDir + "/" + EPISODE_STARTED;
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
                "i=0; while [ ! -e " + started + " ] && [ $i -lt " + START_WAIT_SECONDS * 5 + " ]; do sleep 0.2; i=$((i+1)); done; "
                        + "[ -e " + started + " ] || echo 'crucible: the verifier sidecar did not start its episode; running unwatched' >&2; "
                        + "\"$@\"; code=$?; echo $code > " + runDir + "/" + AGENT_EXIT + "; exit $code", "crucible-agent"));
        wrapped.addAll(command);
        return wrapped;
    }
}
