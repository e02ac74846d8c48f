package dev.crucible.derive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads files of a repository as they are at a commit, through the git CLI ({@code git show
 * COMMIT:PATH}), so deriving never depends on what is checked out. Without a commit it reads the
 * working tree.
 */
final class RepositoryFiles {
    private final Path repo;
    private final String commit;

    RepositoryFiles(Path repo, String commit) {
        this.repo = repo;
        this.commit = commit;
    }

    /** The file's text, or null when it does not exist (at that commit). */
    String read(String path) throws IOException {
        String relative = path.startsWith("./") ? path.substring(2) : path;
        if (commit == null) {
            Path file = repo.resolve(relative);
            return Files.isRegularFile(file) ? Files.readString(file) : null;
        }
        GitResult r = git("show", commit + ":" + relative);
        if (r.exit != 0) {
            if (r.err.contains("does not exist") || r.err.contains("exists on disk, but not in")) {
                return null;
            }
            throw new IOException("git show " + commit + ":" + relative + " failed: " + r.err.strip());
        }
        return r.out;
    }

    /** Same as {@link #read} but never throws: for optional files such as .nvmrc. */
    String readQuietly(String path) {
        try {
            return read(path);
        } catch (IOException e) {
            return null;
        }
    }

    /** The full commit id the given commit names, so the manifest pins exactly what was read. */
    String resolveCommit() throws IOException {
        GitResult r = git("rev-parse", "--verify", "--quiet", commit + "^{commit}");
        if (r.exit != 0) {
            throw new IOException("no commit '" + commit + "' in " + repo + (r.err.isBlank() ? "" : ": " + r.err.strip()));
        }
        return r.out.strip();
    }

    private record GitResult(int exit, String out, String err) {
    }

    private GitResult git(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        try (InputStream out = p.getInputStream(); InputStream err = p.getErrorStream()) {
            // Read stderr concurrently so a large file on stdout can never deadlock on a full pipe.
            var errText = new java.util.concurrent.CompletableFuture<String>();
            Thread t = new Thread(() -> {
                try {
                    errText.complete(new String(err.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    errText.complete("");
                }
            });
            t.start();
            String outText = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("git " + String.join(" ", args) + " did not finish in 60 s");
            }
            t.join();
            return new GitResult(p.exitValue(), outText, errText.join());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while running git", e);
        }
    }
}
