package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Turns a workspace into the git repository the agent gets. By default a fresh repository with one
 * commit of the task's tree: no other refs, no reflog, no remote, no hooks, no object of any other
 * commit, so there is no later fix to mine. The commit is deterministic (fixed author, committer, date
 * and message), so the same tree always gives the same task commit id.
 * With {@code history: ancestors} the repository holds the task commit's ancestry, fetched by id into
 * a new repository: still one branch, no remote, nothing beyond the task commit.
 * Either way the newest tag behind the task commit is carried by name ({@link #carryVersionTag}).
 */
final class TaskRepository {
    static final String BRANCH = "main";
    static final String AUTHOR = "Crucible";
    static final String EMAIL = "task@crucible.invalid";
    static final String DATE = "2000-01-01T00:00:00+0000";
    static final String MESSAGE = "task";

    private TaskRepository() {}

    /**
     * Makes {@code ws} (which must have no .git) a one-commit repository of its files and returns the
     * commit id. {@code force}: commit files its .gitignore names too (a source commit's exact tree).
     */
    static String commitTree(Path ws, boolean force) throws IOException, InterruptedException {
        init(ws);
        if (force) git(ws, "add", "-A", "-f", "--", ".");
        else git(ws, "add", "-A", "--", ".");
        git(ws, "commit", "-q", "--no-verify", "--no-gpg-sign", "--allow-empty", "-m", MESSAGE);
        return git(ws, "rev-parse", "HEAD").strip();
    }

    /**
     * Makes {@code ws} (holding {@code commit}'s tree, no .git) a repository of {@code commit}'s ancestry
     * from {@code repo}: only objects reachable from it are fetched, into branch {@value #BRANCH}.
     */
    static String ancestry(Path repo, String commit, Path ws) throws IOException, InterruptedException {
        init(ws);
        String full = git(repo, "rev-parse", "--verify", "--end-of-options", commit + "^{commit}").strip();
        git(ws, "fetch", "-q", "--update-head-ok", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", repo.toAbsolutePath().toString(),
                full + ":refs/heads/" + BRANCH);
        git(ws, "reset", "-q"); // the index from the commit; the files are there already
        git(ws, "gc", "-q", "--prune=now");
        return full;
    }

    /**
     * Gives the task repository the name of the newest tag reachable from the task commit in
     * {@code repo}, if any, so version tools that read tags (setuptools_scm, git describe) still find a
     * version: a one-commit task without it reports 0.0.1 and fails a suite's version test. Only a tag
     * on the task commit's ancestry is carried, so it names nothing later. One-commit mode tags HEAD
     * (the only commit); ancestry mode tags the tag's own commit. Returns the tag, or null.
     */
    static String carryVersionTag(Path repo, String commit, Path ws, boolean ancestry) throws IOException, InterruptedException {
        String tag;
        try {
            tag = git(repo, "describe", "--tags", "--abbrev=0", "--end-of-options", commit + "^{commit}").strip();
        } catch (IOException noTag) {
            return null; // no tag behind the task commit: nothing to carry
        }
        if (tag.isEmpty() || tag.startsWith("-")) return null;
        String target = ancestry ? git(repo, "rev-parse", "--verify", "--end-of-options", tag + "^{commit}").strip() : "HEAD";
        // an annotated tag stays annotated: `git describe` without --tags sees only those (fzf's Makefile reads its
        // version so, and stopped in grading on the lightweight copy); its tagger and date are the fixed identity
        boolean annotated = git(repo, "cat-file", "-t", "--end-of-options", "refs/tags/" + tag).strip().equals("tag");
        if (annotated) git(ws, "tag", "-a", "-m", tag, "--end-of-options", tag, target);
        else git(ws, "tag", "--end-of-options", tag, target);
        return tag;
    }

    private static void init(Path ws) throws IOException, InterruptedException {
        if (Files.exists(ws.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(ws + "/.git: a task repository starts from files only");
        }
        git(ws, "init", "-q", "--template=", "-b", BRANCH);
        git(ws, "config", "core.hooksPath", "/dev/null");      // no hook runs, whoever calls git here later
        git(ws, "config", "core.logAllRefUpdates", "false");   // no reflog
        git(ws, "config", "gc.auto", "0");
    }

    /** Runs git in {@code dir} with no user or system configuration and a fixed identity; returns stdout. */
    static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("GIT_"));
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_AUTHOR_NAME", AUTHOR);
        env.put("GIT_AUTHOR_EMAIL", EMAIL);
        env.put("GIT_AUTHOR_DATE", DATE);
        env.put("GIT_COMMITTER_NAME", AUTHOR);
        env.put("GIT_COMMITTER_EMAIL", EMAIL);
        env.put("GIT_COMMITTER_DATE", DATE);
        Path err = Files.createTempFile("crucible-git-", ".log");
        try {
            Process p = pb.redirectError(err.toFile()).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("git " + String.join(" ", args) + " in " + dir + " took longer than 300 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException("git " + args[0] + " in " + dir + " failed: " + Files.readString(err, StandardCharsets.UTF_8).strip());
            }
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
