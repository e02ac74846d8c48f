package dev.crucible.cli.verify;

import dev.crucible.verifier.config.ExcludedTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes {@code excludedTests} into a manifest's {@code spec.verifier} by inserting lines, so the rest
 * of the file (comments, order, other documents) stays as the author wrote it.
 */
final class ManifestExclusions {
    private static final Pattern VERIFIER = Pattern.compile("(?m)^(\\s+)verifier:\\s*(#.*)?$");

    private ManifestExclusions() {}

    /** The YAML block for {@code excludedTests} at {@code indent}. */
    static String block(List<ExcludedTest> tests, String indent) {
        StringBuilder sb = new StringBuilder(indent).append("excludedTests:  # crucible verify --find-offline: fail at the task commit only for want of a network\n");
        for (ExcludedTest t : tests) {
            sb.append(indent).append("  - id: ").append(quote(t.id())).append('\n');
            sb.append(indent).append("    reason: ").append(quote(t.reason())).append('\n');
        }
        return sb.toString();
    }

    static void write(Path manifest, List<ExcludedTest> tests) throws IOException {
        String text = Files.readString(manifest);
        Matcher m = VERIFIER.matcher(text);
        if (!m.find()) throw new IOException(manifest + ": no spec.verifier mapping (a 'verifier:' line) to add excludedTests to");
        String indent = m.group(1) + "  ";
        if (Pattern.compile("(?m)^" + indent + "excludedTests:").matcher(text).find()) {
            throw new IOException(manifest + ": spec.verifier.excludedTests is already there; remove it to write a new list");
        }
        int at = text.indexOf('\n', m.end()) + 1;
        if (at == 0) at = text.length();
        Files.writeString(manifest, text.substring(0, at) + block(tests, indent) + text.substring(at));
    }

    /** A YAML double-quoted scalar. */
    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\t", "\\t") + "\"";
    }
}
