package dev.crucible.cli.derive;

import dev.crucible.verifier.config.ExcludedTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes a baseline's lists into a derived manifest's {@code spec.verifier} ({@code passToPass}, then
 * {@code excludedTests} with each reason) by inserting lines after {@code verifier:}, so the rest of the
 * manifest stays as derive wrote it.
 */
final class BaselineManifest {
    private static final Pattern VERIFIER = Pattern.compile("(?m)^(\\s+)verifier:\\s*(#.*)?$");

    private BaselineManifest() {}

    static String with(String manifest, Baseline.Result r) {
        if (!r.perTest() || r.passToPass().isEmpty() && r.excluded().isEmpty()) return manifest;
        Matcher m = VERIFIER.matcher(manifest);
        if (!m.find()) throw new IllegalArgumentException("the derived manifest has no spec.verifier mapping ('verifier:' line)");
        String indent = m.group(1) + "  ";
        StringBuilder sb = new StringBuilder();
        sb.append(indent).append("passToPass:  # crucible derive's baseline: passed in both no-op runs at the task commit\n");
        for (String id : r.passToPass()) sb.append(indent).append("  - ").append(quote(id)).append('\n');
        if (!r.excluded().isEmpty()) {
            sb.append(indent).append("excludedTests:  # crucible derive's baseline: failed (or flaked) at the task commit with a no-op agent\n");
            for (ExcludedTest t : r.excluded()) {
                sb.append(indent).append("  - id: ").append(quote(t.id())).append('\n');
                sb.append(indent).append("    reason: ").append(quote(t.reason())).append('\n');
            }
        }
        int at = manifest.indexOf('\n', m.end()) + 1;
        if (at == 0) at = manifest.length();
        return manifest.substring(0, at) + sb + manifest.substring(at);
    }

    /** A YAML double-quoted scalar. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\x%02x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
