package dev.crucible.cli.derive;

import java.util.List;
import java.util.Locale;

/** The table {@code crucible derive --repos} prints: one markdown row per repository, then the rate. */
final class RepoTable {
    private RepoTable() {}

    static String markdown(List<RepoOutcome> rows, double hours) {
        StringBuilder b = new StringBuilder();
        b.append("| # | repository | result | reason / what derive chose | tests | setup s | derive s |\n");
        b.append("|---|---|---|---|---|---|---|\n");
        rows.forEach(r -> b.append(row(r)).append('\n'));
        long usable = rows.stream().filter(r -> r.status().equals("usable")).count();
        b.append("\n").append(rows.size()).append(" repositories in ")
                .append(String.format(Locale.ROOT, "%.1f", hours * 60)).append(" min: ")
                .append(String.format(Locale.ROOT, "%.1f", hours > 0 ? rows.size() / hours : 0)).append(" repositories per hour on this machine (")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores); ").append(usable).append(" usable");
        for (String s : List.of("unusable", "failed", "timeout", "derived")) {
            long n = rows.stream().filter(r -> r.status().equals(s)).count();
            if (n > 0) b.append(", ").append(n).append(' ').append(s);
        }
        return b.append("\n").toString();
    }

    /** One repository's row (also printed on stderr as soon as it is known, so a stopped batch keeps its rows). */
    static String row(RepoOutcome r) {
        return "| " + r.entry().line() + " | " + cell(r.entry().repo().toString())
                + (r.entry().job() == null ? "" : " (job " + cell(r.entry().job()) + ")")
                + " | " + r.status() + " | " + cell(r.reason()) + " | " + cell(r.tests())
                + " | " + RepoBatch.seconds(r.setupSeconds()) + " | " + RepoBatch.seconds(r.seconds()) + " |";
    }

    // a '|' or a line break inside a cell would break the row
    private static String cell(String s) {
        return s.replace("|", "\\|").replace('\n', ' ');
    }
}
