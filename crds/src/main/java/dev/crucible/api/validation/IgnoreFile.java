package dev.crucible.api.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * A folder's {@code .crucibleignore}: globs (relative to the folder, one a line, {@code #} comments)
 * of files that a folder walk leaves out, as {@code .helmignore} does for charts. A pattern ending in
 * {@code /} covers everything below that folder. Files named on the command line are never ignored.
 */
final class IgnoreFile {

    static final String NAME = ".crucibleignore";

    private final List<PathMatcher> matchers;

    private IgnoreFile(List<PathMatcher> matchers) {
        this.matchers = matchers;
    }

    static IgnoreFile in(Path folder) {
        Path file = folder.resolve(NAME);
        List<PathMatcher> matchers = new ArrayList<>();
        if (Files.isRegularFile(file)) {
            try {
                for (String line : Files.readAllLines(file)) {
                    String glob = line.strip();
                    if (glob.isEmpty() || glob.startsWith("#")) {
                        continue;
                    }
                    if (glob.endsWith("/")) {
                        glob = glob + "**";
                    }
                    matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + glob));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new IgnoreFile(matchers);
    }

    boolean ignores(Path relative) {
        return matchers.stream().anyMatch(m -> m.matches(relative));
    }
}
