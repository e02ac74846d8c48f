package dev.crucible.cli.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * No sandbox, because the user turned it off ({@code --no-sandbox}). The monitor still watches; nothing is
 * prevented. Where the sandbox is wanted and cannot be made, the run is refused ({@link #refusal}) instead.
 */
public record Unconfined(Path homeDir, String why) implements Sandbox {

    /**
     * Why a run must not start, or null: the sandbox is wanted and no box can be made here. The agent is
     * untrusted code and runs outside its box only when the user said so; the attempt then ends before setup
     * (reason SandboxUnavailable) instead of running unconfined and having only its grade refused.
     */
    static String refusal(boolean sandboxWanted) {
        if (!sandboxWanted || dev.crucible.verifier.sandbox.Box.availability().ok()) return null;
        return "no sandbox can be made here (" + dev.crucible.verifier.sandbox.Box.availability().problem()
                + "), so the agent was not started: install bubblewrap (apt-get install -y bubblewrap), or pass --no-sandbox"
                + " to run the agent and its grading unconfined";
    }

    @Override
    public String name() { return "none"; }

    @Override
    public List<String> wrap(List<String> argv, Path cwd, Map<String, String> env) { return argv; }

    @Override
    public String home() { return homeDir.toString(); }

    @Override
    public String describe() {
        return "WARNING: " + why + ": the agent runs unconfined as " + System.getProperty("user.name")
                + ". NOT enforced: no network isolation (it can reach anything this machine can), no read-only protected"
                + " paths (tests and grader files can be changed; the monitor only reports it), writes anywhere this user"
                + " may write, and processes that escape the kill sweep. Install bubblewrap (apt-get install -y bubblewrap)"
                + " to enforce them. Graded code runs unconfined too.";
    }
}
