package dev.crucible.derive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs a step that computes a matrix ({@code python ci/matrix.py >> $GITHUB_OUTPUT}) the way a runner would:
 * bash, in a fresh export of the commit (never the user's working tree), with GITHUB_OUTPUT a file of its
 * own and CI's variables, for at most {@link #LIMIT_SECONDS}. This runs the repository's code on this machine,
 * so only a deriver asked to do so ({@link WorkflowDeriver#runningRepositorySteps()}) uses it.
 */
final class ProducingSteps implements ComputedMatrix.StepRunner {
    static final int LIMIT_SECONDS = 120;
    private final Path repo;
    private final String commit;

    /** @param commit the commit to export; null exports HEAD */
    ProducingSteps(Path repo, String commit) {
        this.repo = repo;
        this.commit = commit;
    }

    @Override
    public String run(String script, String workingDirectory) throws IOException {
        Path tree = Files.createTempDirectory("crucible-matrix-step-");
        try {
            Path archive = tree.resolve(".export.tar");
            exec(List.of("git", "-C", repo.toString(), "archive", "--format=tar", "-o", archive.toString(),
                    commit == null ? "HEAD" : commit), tree, Map.of(), "git archive");
            exec(List.of("tar", "-xf", archive.toString(), "-C", tree.toString()), tree, Map.of(), "tar");
            Files.delete(archive);
            Path output = Files.createTempFile("crucible-github-output-", "");
            try {
                Path cwd = workingDirectory == null ? tree : tree.resolve(workingDirectory).normalize();
                if (!cwd.startsWith(tree) || !Files.isDirectory(cwd)) {
                    throw new IOException("working-directory '" + workingDirectory + "' is not a folder of the repository");
                }
                exec(List.of("bash", "-e", "-c", script), cwd, Map.of("GITHUB_OUTPUT", output.toString(),
                        "GITHUB_WORKSPACE", tree.toString(), "CI", "true", "GITHUB_ACTIONS", "true", "RUNNER_OS", "Linux"),
                        "the step");
                return Files.readString(output, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(output);
            }
        } finally {
            try (Stream<Path> s = Files.walk(tree)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void exec(List<String> argv, Path cwd, Map<String, String> env, String what) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Path log = Files.createTempFile("crucible-step-", ".log");
        try {
            pb.redirectOutput(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IOException(what + " ran past " + LIMIT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                String out = Files.readString(log, StandardCharsets.UTF_8).strip();
                throw new IOException(what + " exited with status " + p.exitValue()
                        + (out.isEmpty() ? "" : ": " + (out.length() > 300 ? "…" + out.substring(out.length() - 300) : out)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
