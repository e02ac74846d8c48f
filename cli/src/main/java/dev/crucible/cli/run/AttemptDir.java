package dev.crucible.cli.run;

import java.nio.file.Path;

/**
 * The files of one attempt under {@code --out}: what a person opens after a run. The sandbox folder
 * holds the workspace copy beside links to the manifest directory's other entries, so an agent
 * command written relative to the workspace (e.g. {@code sh ../agents/honest.sh}) works as it
 * does next to the original.
 */
public record AttemptDir(Path root) {
    public Path result() { return root.resolve("result.json"); }

    public Path agentLog() { return root.resolve("agent.log"); }

    public Path setupLog() { return root.resolve("setup.log"); }

    public Path taskFile() { return root.resolve("task.md"); }

    public Path sandbox() { return root.resolve("sandbox"); }

    /** Interactive mode: the environment API's bearer token (mode 0600, never inside the sandbox folder). */
    public Path apiToken() { return root.resolve("api-token"); }

    /** Writes result.json; null when written, else why not (the caller says so instead of naming a file that is not there). */
    public String writeResult(Object result) {
        try {
            java.nio.file.Files.createDirectories(root);
            dev.crucible.files.OutputFolder.replace(result(), dev.crucible.verifier.Json.write(result, true) + "\n"); // never through a planted link
            return null;
        } catch (java.io.IOException e) {
            return e.getMessage();
        }
    }
}
