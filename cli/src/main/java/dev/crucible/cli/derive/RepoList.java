package dev.crucible.cli.derive;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The file {@code crucible derive --repos LIST} reads: one repository a line, {@code PATH [JOB NAME]}. Blank
 * lines and lines starting with {@code #} are skipped; a relative PATH is relative to the list's folder (so a
 * list travels with its checkouts). Every bad line is reported with its number, and none is run then.
 */
final class RepoList {
    /**
     * One repository to derive.
     *
     * @param line its line in the list (1-based)
     * @param repo the checkout
     * @param job  the job to derive, or null: derive picks the first job that runs tests
     * @param name a file-name-safe name, unique in the list, for its output files
     */
    record Entry(int line, Path repo, String job, String name) {}

    /** The entries, or the errors that stop the batch before anything runs. */
    record Parsed(List<Entry> entries, List<String> errors) {}

    private RepoList() {}

    static Parsed read(Path list) throws IOException {
        List<String> lines = Files.readAllLines(list);
        Path base = list.toAbsolutePath().getParent();
        List<Entry> entries = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.startsWith("#")) continue;
            String where = list + ":" + (i + 1) + ": ";
            String[] parts = text.split("\\s+", 2);
            Path repo;
            try {
                repo = base.resolve(parts[0]).normalize();
            } catch (java.nio.file.InvalidPathException e) {
                errors.add(where + "'" + parts[0] + "' is not a path");
                continue;
            }
            if (!Files.isDirectory(repo)) {
                errors.add(where + repo + ": no such directory (a line is PATH [JOB NAME])");
                continue;
            }
            if (!Files.exists(repo.resolve(".git"))) {
                errors.add(where + repo + ": not a git checkout (no .git)");
                continue;
            }
            String job = parts.length > 1 ? parts[1].strip() : null;
            entries.add(new Entry(i + 1, repo, job, unique(names, safe(repo.getFileName() == null ? "repo" : repo.getFileName().toString()))));
        }
        if (entries.isEmpty() && errors.isEmpty()) errors.add(list + ": no repositories (a line is PATH [JOB NAME])");
        return new Parsed(entries, errors);
    }

    private static String safe(String s) {
        String n = s.replaceAll("[^A-Za-z0-9._-]", "_");
        return n.isEmpty() || n.startsWith(".") ? "repo" + n : n;
    }

    // two checkouts of the same name (a/x, b/x) must not write each other's manifest
    private static String unique(Set<String> names, String name) {
        String n = name;
        for (int k = 2; !names.add(n); k++) n = name + "-" + k;
        return n;
    }
}
