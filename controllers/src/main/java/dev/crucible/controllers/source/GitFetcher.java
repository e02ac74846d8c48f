package dev.crucible.controllers.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fetches one commit of a remote repository (depth 1, no checkout) into a cache folder named by the
 * URL's hash, with the git CLI. Only what derivation reads ({@code git show COMMIT:PATH}) is needed.
 */
final class GitFetcher {

    /** Prefix of errors that may pass on retry (network, remote down), as opposed to bad input. */
    static final String TRANSIENT = "spec.source.repo: cannot fetch";

    static final class FetchException extends Exception {
        FetchException(String message) {
            super(message);
        }
    }

    private final Path cacheDir;

    GitFetcher(Path cacheDir) {
        this.cacheDir = cacheDir;
    }

    synchronized Path fetch(String url, String commit) throws FetchException, IOException, InterruptedException {
        if (!commit.matches("[0-9a-f]{40}")) {
            throw new FetchException("spec.source.commit: a remote repository needs the full 40-character commit id, got " + commit);
        }
        if (url.startsWith("-") || !(url.contains("://") || url.contains("@"))) {
            throw new FetchException("spec.source.repo: " + url + " is neither a local repository the operator can read nor a git URL");
        }
        Path dir = cacheDir.resolve(hash(url));
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("HEAD"))) {
            git(dir, "init", "-q", "--bare", ".");
        }
        if (git(dir, "cat-file", "-e", commit + "^{commit}").exit() == 0) {
            return dir;
        }
        Run r = git(dir, "fetch", "-q", "--depth", "1", "--no-tags", url, commit);
        if (r.exit() != 0) {
            throw new FetchException(TRANSIENT + " " + commit + " from " + url + ": " + r.output().strip());
        }
        return dir;
    }

    private record Run(int exit, String output) {
    }

    private static Run git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("GIT_TERMINAL_PROMPT", "0"); // never wait for credentials
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Run(124, "git " + args[0] + " timed out after 120 s");
        }
        return new Run(p.exitValue(), out);
    }

    private static String hash(String url) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(url.getBytes(StandardCharsets.UTF_8)))
                    .substring(0, 24);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
