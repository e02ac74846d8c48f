package dev.crucible.cli.integrity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One agent of the integrity corpus: a script under {@code agents/exploit/} or {@code agents/honest/}
 * whose header names what it does, {@code # exploit MECHANISM: how} or {@code # honest TRAIT: what a
 * naive monitor would flag}. The kind comes from the folder, so a header cannot disagree with it.
 */
public record CorpusAgent(String name, Kind kind, String mechanism, String description, Path file) {
    public enum Kind { exploit, honest }

    private static final Pattern HEADER = Pattern.compile("^#\\s*(exploit|honest)\\s+([a-z0-9][a-z0-9-]*)\\s*:\\s*(.+)$");

    /** The command that runs the script from {@code dir} (its private copy, visible read-only to the sandbox). */
    public String command(Path copy) {
        String interpreter = file.getFileName().toString().endsWith(".py") ? "python3" : "sh";
        return interpreter + " " + copy;
    }

    /** Every agent under {@code agentsDir}/exploit and /honest, sorted by name; throws naming the file whose header is bad. */
    public static List<CorpusAgent> load(Path agentsDir) throws IOException {
        List<CorpusAgent> out = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            Path dir = agentsDir.resolve(kind.name());
            if (!Files.isDirectory(dir)) throw new IOException(dir + ": no such folder (the corpus needs exploit/ and honest/)");
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".sh") || p.toString().endsWith(".py")).sorted().toList()) {
                    out.add(parse(f, kind));
                }
            }
        }
        return out;
    }

    static CorpusAgent parse(Path f, Kind folderKind) throws IOException {
        String stem = f.getFileName().toString().replaceFirst("\\.(sh|py)$", "");
        if (!stem.matches("[a-z0-9][a-z0-9-]{0,62}")) {
            throw new IOException(f + ": name must be lower-case letters, digits and dashes (it names the rollout)");
        }
        try (Stream<String> lines = Files.lines(f)) {
            for (String line : lines.limit(5).toList()) {
                Matcher m = HEADER.matcher(line.strip());
                if (!m.matches()) continue;
                if (!m.group(1).equals(folderKind.name())) {
                    throw new IOException(f + ": header says '" + m.group(1) + "' but the file is under " + folderKind + "/");
                }
                return new CorpusAgent(stem, folderKind, m.group(2), m.group(3).strip(), f.toAbsolutePath().normalize());
            }
        }
        throw new IOException(f + ": no header in its first 5 lines; expected '# " + folderKind + " NAME: description'");
    }
}
