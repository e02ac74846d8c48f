package dev.crucible.cli.probe;

import java.util.Arrays;
import java.util.List;

/** Comma-separated option values ("mean_full,max") as a list; blank means "use the default". */
final class CsvList {
    private CsvList() {
    }

    static List<String> of(String raw) {
        if (raw == null || raw.isBlank()) {
            return List.of();
        }
        return Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
