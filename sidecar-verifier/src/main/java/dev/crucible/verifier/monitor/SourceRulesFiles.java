package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The syntax-rules helper's Python sources (resources beside this class): the package {@code source_rules/}
 * and {@code source_rules_boot.py}, which serves the package's modules from its command line. The helper is
 * run as {@code python -I -S -B -c BOOT (PATH SOURCE)... -- ARGS}: every source travels on the command line,
 * so the helper opens no file (nothing on disk for the agent to replace, nothing to install first).
 */
final class SourceRulesFiles {
    /** Every module of the package, in its folder; SourceRulesFilesTest checks the list against the folder. */
    static final List<String> MODULES = List.of("__init__.py", "rule_tables.py", "fold.py", "equality_rules.py", "hook_and_write_rules.py",
            "name_rules.py", "call_rules.py", "literal_rules.py", "links.py", "analyzer.py", "config_sections.py", "serve.py");
    static final String PACKAGE = "source_rules";
    private static final List<String> ARGS = load();

    private SourceRulesFiles() {}

    /** {@code -c BOOT PATH SOURCE ... --}: what follows the interpreter's own options; the helper's arguments come after. */
    static List<String> commandLine() { return ARGS; }

    private static List<String> load() {
        List<String> out = new ArrayList<>(List.of("-c", read("source_rules_boot.py")));
        for (String m : MODULES) {
            out.add(PACKAGE + "/" + m);
            out.add(read(PACKAGE + "/" + m));
        }
        out.add("--");
        return List.copyOf(out);
    }

    private static String read(String name) {
        try (InputStream in = SourceRulesFiles.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException(name + " missing from the sidecar jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
