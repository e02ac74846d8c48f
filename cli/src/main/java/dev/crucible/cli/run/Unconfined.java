package dev.crucible.cli.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** No sandbox: bubblewrap is missing or was turned off. The monitor still watches; nothing is prevented. */
public record Unconfined(Path homeDir, String why) implements Sandbox {
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
                + " to enforce them. Grading refuses to run without a sandbox unless --no-sandbox was given.";
    }
}
