package dev.crucible.cli.derive;

import dev.crucible.derive.FixCommit;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code crucible derive --fix COMMIT} and {@code --fixes N}: flags to {@link FixTasks}, results to the terminal. */
final class FixCommands {
    static final int REFUSED = 1;

    private final Path repo;
    private final String workflow;
    private final String job;
    private final CommandSpec spec;

    FixCommands(Path repo, String workflow, String job, CommandSpec spec) {
        this.repo = repo;
        this.workflow = workflow;
        this.job = job;
        this.spec = spec;
    }

    int run(String fix, Integer fixes, String from, Path output, int scan, Integer tries) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (fix != null && fixes != null) {
            err.println("crucible derive: --fix and --fixes: give one of them");
            return DeriveCommand.EXIT_ERROR;
        }
        String repoName = repo.toAbsolutePath().normalize().getFileName().toString();
        FixTasks tasks = new FixTasks(repo, workflow, job, err, fix != null ? "HEAD" : from);
        if (fix != null) {
            Path dir = output != null ? output : Path.of("crucible-tasks", repoName + "-fix-" + shortOf(fix));
            FixTasks.Result r = tasks.make(fix, dir);
            if (!r.written()) {
                err.println("crucible derive: --fix " + fix + ": " + r.status());
                return REFUSED;
            }
            out.println("wrote " + r.dir().resolve(FixTaskFolder.MANIFEST) + " (fix " + FixCommit.shortId(r.commit())
                    + ": " + r.failToPass() + " failToPass, " + r.passToPass() + " passToPass; reference solution "
                    + r.dir().resolve(FixTaskFolder.REFERENCE) + ")");
            out.flush();
            return 0;
        }
        if (fixes < 1) {
            err.println("crucible derive: --fixes " + fixes + ": must be at least 1");
            return DeriveCommand.EXIT_ERROR;
        }
        List<FixCommit> candidates;
        try {
            candidates = FixCommit.candidates(repo, from == null ? "HEAD" : from, tries == null ? 3 * fixes : Math.max(fixes, tries), scan);
        } catch (IOException e) {
            err.println("crucible derive: --fixes: " + e.getMessage());
            return DeriveCommand.EXIT_ERROR;
        }
        if (candidates.isEmpty()) {
            err.println("crucible derive: --fixes: none of the last " + scan + " commits changes both source and test files");
            return REFUSED;
        }
        Path root = output != null ? output : Path.of("crucible-tasks", repoName);
        List<FixTasks.Result> results = new ArrayList<>();
        for (FixCommit c : candidates) {
            if (results.stream().filter(FixTasks.Result::written).count() >= fixes) break; // a refused candidate is not a task
            err.println("fix " + FixCommit.shortId(c.commit()) + " (" + c.subject() + ")");
            err.flush();
            results.add(tasks.make(c.commit(), root.resolve(FixCommit.shortId(c.commit()))));
        }
        out.print(table(results));
        out.flush();
        return results.stream().anyMatch(FixTasks.Result::written) ? 0 : REFUSED;
    }

    static String table(List<FixTasks.Result> results) {
        StringBuilder t = new StringBuilder(String.format("%-12s  %-9s  %-9s  %-6s  %s%n", "COMMIT", "F2P", "P2P",
                "SECS", "STATUS"));
        int ok = 0;
        for (FixTasks.Result r : results) {
            t.append(String.format("%-12s  %-9d  %-9d  %-6d  %s%n", FixCommit.shortId(r.commit()), r.failToPass(),
                    r.passToPass(), Math.round(r.seconds()), r.written() ? "ok " + r.dir() : r.status()));
            ok += r.written() ? 1 : 0;
        }
        return t.append(ok).append(" of ").append(results.size()).append(" fix commits became tasks\n").toString();
    }

    private static String shortOf(String commitish) {
        return commitish.matches("[0-9a-f]{7,40}") ? FixCommit.shortId(commitish) : commitish.replaceAll("[^A-Za-z0-9._-]", "-");
    }
}
