package dev.crucible.derive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A commit seen as a bug fix with its tests (SWE-bench style): the parent is the task's workspace, the
 * test files it adds or changes are the hidden tests, the rest of its diff is the reference solution.
 * Reads the repository through the git CLI only.
 *
 * @param commit      the fix, full id
 * @param parent      its first parent, full id
 * @param subject     the commit message's first line
 * @param message     the whole commit message
 * @param testFiles   test files the fix adds or modifies (paths at the fix)
 * @param deletedTests test files the fix deletes (they stay in the workspace: noted, not hidden)
 * @param sourceFiles every other path the fix touches
 */
public record FixCommit(String commit, String parent, String subject, String message, List<String> testFiles,
        List<String> deletedTests, List<String> sourceFiles) {

    /** Test infrastructure besides the ecosystems' test folders: pytest's conftest. */
    private static final List<String> EXTRA_TEST_GLOBS = List.of("conftest.py", "**/conftest.py");

    /** Reads a commit; throws with a one-line reason when it is not a usable fix. */
    public static FixCommit read(Path repo, String commitish) throws IOException {
        String commit = git(repo, "rev-parse", "--verify", "--quiet", commitish + "^{commit}").strip();
        if (commit.isEmpty()) {
            throw new IOException("no commit '" + commitish + "' in " + repo);
        }
        String parents = git(repo, "rev-list", "--parents", "-n", "1", commit).strip();
        String[] ids = parents.split("\\s+");
        if (ids.length < 2) {
            throw new IOException("commit " + shortId(commit) + " has no parent: there is no state before the fix");
        }
        String message = git(repo, "log", "-1", "--format=%B", commit).strip();
        List<String> tests = new ArrayList<>();
        List<String> deleted = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        String status = git(repo, "diff", "--name-status", "--no-renames", ids[1], commit);
        for (String line : status.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.split("\t");
            String path = parts[parts.length - 1];
            if (isTestPath(path)) {
                (parts[0].startsWith("D") ? deleted : tests).add(path);
            } else {
                sources.add(path);
            }
        }
        return new FixCommit(commit, ids[1], message.lines().findFirst().orElse(""), message, tests, deleted, sources);
    }

    /**
     * The newest commits reachable from {@code from} (newest first) that change both test files and
     * other files: the candidates for fix tasks. Looks at no more than {@code scanLimit} commits; merges
     * are skipped (their diff against one parent mixes branches).
     */
    public static List<FixCommit> candidates(Path repo, String from, int wanted, int scanLimit) throws IOException {
        List<FixCommit> out = new ArrayList<>();
        String log = git(repo, "log", "--no-merges", "--format=%H", "-n", Integer.toString(scanLimit), from);
        for (String id : log.split("\n")) {
            if (id.isBlank() || out.size() >= wanted) {
                continue;
            }
            FixCommit c;
            try {
                c = read(repo, id.strip());
            } catch (IOException e) {
                continue;
            }
            if (c.refusal() == null) {
                out.add(c);
            }
        }
        return out;
    }

    /** Why this commit cannot be a fix task by its files alone; null when it can. */
    public String refusal() {
        if (testFiles.isEmpty()) {
            return "the commit adds or changes no test files";
        }
        if (sourceFiles.isEmpty()) {
            return "the commit changes only tests: there is nothing to fix";
        }
        return null;
    }

    /** Whether a path holds tests in any ecosystem (test folders, *_test.go, *.test.js, src/test, conftest.py). */
    public static boolean isTestPath(String path) {
        Path p = Path.of(path);
        for (String glob : globs()) {
            if (FileSystems.getDefault().getPathMatcher("glob:" + glob).matches(p)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> globs() {
        Set<String> all = new LinkedHashSet<>();
        all.addAll(TestPaths.PYTHON);
        all.addAll(TestPaths.GO);
        all.addAll(TestPaths.NODE);
        all.addAll(TestPaths.JVM);
        all.addAll(TestPaths.RUST);
        all.addAll(EXTRA_TEST_GLOBS);
        return new ArrayList<>(all);
    }

    /** {@code git diff PARENT COMMIT -- FILES} (binary-safe), the reference solution or the test patch. */
    public String diff(Path repo, List<String> files) throws IOException {
        if (files.isEmpty()) {
            return "";
        }
        List<String> args = new ArrayList<>(List.of("diff", "--binary", "--no-renames", parent, commit, "--"));
        args.addAll(files);
        return git(repo, args.toArray(String[]::new));
    }

    /** A file's bytes at the fix. */
    public byte[] fileAtFix(Path repo, String path) throws IOException {
        return gitBytes(repo, "show", commit + ":" + path);
    }

    public static String shortId(String id) {
        return id.length() > 12 ? id.substring(0, 12) : id;
    }

    /** A DNS-1123 name for the task: repository name and the fix's short id. */
    public String taskName(String repoName) {
        return DnsNames.of(repoName, "fix-" + shortId(commit));
    }

    private static String git(Path repo, String... args) throws IOException {
        return new String(gitBytes(repo, args), StandardCharsets.UTF_8);
    }

    private static byte[] gitBytes(Path repo, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("git " + args[0] + " did not finish in 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running git", e);
        }
        if (p.exitValue() != 0 && !args[0].equals("rev-parse")) {
            throw new IOException("git " + String.join(" ", args) + " failed (exit " + p.exitValue() + ")");
        }
        return out;
    }
}
