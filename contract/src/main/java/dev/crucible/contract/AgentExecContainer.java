package dev.crucible.contract;

import java.util.List;

/**
 * The pod contract of an interactive rollout pod's agent-exec container: the environment's image, the
 * agent's uid, running the grading runner script ({@link GradingContainer#SCRIPT_PATH}) in agent mode.
 * It connects once to the sidecar's socket {@link #SOCKET} on a volume mounted at {@link #MOUNT} in
 * these two containers only (read-only in the agent-exec container: connecting needs no write access)
 * and runs the trainer's bash steps in the workspace, so they never run beside the sidecar's token.
 */
public final class AgentExecContainer {
    /** Where the socket volume is mounted, in the sidecar and in the agent-exec container alike. */
    public static final String MOUNT = "/crucible/agent-exec";
    /** The sidecar's socket; removed once the runner connected. */
    public static final String SOCKET = MOUNT + "/runner.sock";
    /** The agent's scratch folder (its HOME and TMPDIR): the only writable place besides the workspace. */
    public static final String SCRATCH = "/tmp";

    private AgentExecContainer() {}

    /** The container's command: the environment's python3, isolated from PYTHON* variables and site, in agent mode. */
    public static List<String> command() {
        return List.of("python3", "-I", "-S", GradingContainer.SCRIPT_PATH, "--socket", SOCKET, "--scratch", SCRATCH, "--mode", "agent");
    }
}
