package dev.crucible.verifier.grade.runner;

import dev.crucible.verifier.grade.shell.ShellQuote;
import dev.crucible.verifier.grade.shell.ShellWords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The last simple command of a verifier's script, split so a runner can ask it for machine output:
 * {@code head} is everything before it, kept as written (earlier lines, {@code cd x &&}); then
 * {@code VAR=value} assignments, wrapper programs ({@code uv run --group dev}, {@code poetry run},
 * {@code npx}, {@code timeout 600}, {@code env}) and finally the runner's own words. Only a last
 * command without expansions, pipes or redirections is understood; anything else is not rewritten.
 */
public record TestCommand(String head, List<String> assignments, List<String> wrapper, List<String> words) {
    /** Wrapper options that take a value (so the value is not the program). */
    private static final Set<String> VALUE_OPTIONS = Set.of("--group", "--with", "--extra", "--python", "-p", "--package",
            "--directory", "--project", "--env-file", "--only-group", "--index", "--with-requirements", "-e", "--env",
            "-s", "--signal", "-k", "--kill-after", "--filter", "-F", "-C", "--dir", "-n", "--adjustment", "--workspace", "-w");
    private static final Set<String> ONE_WORD_WRAPPERS = Set.of("npx", "bunx", "pnpx", "env", "nice", "xvfb-run", "stdbuf", "exec", "command");

    public TestCommand {
        assignments = List.copyOf(assignments);
        wrapper = List.copyOf(wrapper);
        words = List.copyOf(words);
    }

    /** The program's base name ({@code /usr/local/go/bin/go} → {@code go}). */
    public String program() {
        return words.isEmpty() ? "" : Path.of(words.get(0)).getFileName().toString();
    }

    public String arg(int i) { return i < words.size() ? words.get(i) : ""; }

    /** Whether the program is a Python interpreter ({@code python}, {@code python3}, {@code python3.12}). */
    public boolean runsPython() { return program().matches("python(\\d(\\.\\d+)?)?"); }

    /** The whole script with the runner's words replaced. */
    public String with(List<String> newWords) {
        List<String> all = new ArrayList<>(assignments);
        wrapper.forEach(all::add);
        all.addAll(newWords);
        String sep = head.isEmpty() || Character.isWhitespace(head.charAt(head.length() - 1)) ? "" : " ";
        return head + sep + String.join(" ", all.stream().map(TestCommand::quote).toList());
    }

    private static String quote(String w) {
        return w.matches("[A-Za-z0-9_./=:@%+,-]+") ? w : ShellQuote.quote(w);
    }

    public static Optional<TestCommand> parse(String script) {
        if (script == null || script.isBlank()) return Optional.empty();
        String s = script.stripTrailing();
        int lineStart = s.lastIndexOf('\n') + 1;
        String last = s.substring(lineStart);
        if (last.stripLeading().startsWith("#")) return Optional.empty();
        int cut = lastSeparator(last);
        String head = s.substring(0, lineStart) + last.substring(0, cut);
        List<String> t = ShellWords.split(last.substring(cut));
        if (t.isEmpty()) return Optional.empty();
        int i = 0;
        List<String> assignments = new ArrayList<>();
        while (i < t.size() && t.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) assignments.add(t.get(i++));
        List<String> wrapper = new ArrayList<>();
        i = skipWrappers(t, i, wrapper);
        if (i >= t.size()) return Optional.empty();
        return Optional.of(new TestCommand(head, assignments, wrapper, t.subList(i, t.size())));
    }

    private static int skipWrappers(List<String> t, int i, List<String> wrapper) {
        while (i < t.size()) {
            String w = Path.of(t.get(i)).getFileName().toString();
            int start = i;
            if ((w.equals("uv") || w.equals("poetry") || w.equals("pipenv") || w.equals("pdm") || w.equals("hatch") || w.equals("rye"))
                    && i + 1 < t.size() && t.get(i + 1).equals("run")) {
                i = options(t, i + 2);
                if (w.equals("hatch") && i < t.size() && t.get(i).matches("[\\w.-]+:[\\w.-]+")) i++; // hatch run env:script
            } else if ((w.equals("pnpm") || w.equals("yarn") || w.equals("bun")) && i + 1 < t.size() && t.get(i + 1).equals("exec")) {
                i = options(t, i + 2);
            } else if (w.equals("timeout")) {
                i = options(t, i + 1) + 1; // the duration
            } else if (ONE_WORD_WRAPPERS.contains(w)) {
                i = options(t, i + 1);
                while (w.equals("env") && i < t.size() && t.get(i).contains("=")) i++;
            } else {
                break;
            }
            for (int k = start; k < Math.min(i, t.size()); k++) wrapper.add(t.get(k));
        }
        return i;
    }

    private static int options(List<String> t, int i) {
        while (i < t.size() && t.get(i).startsWith("-")) {
            String o = t.get(i);
            if (o.equals("--")) return i + 1;
            i += VALUE_OPTIONS.contains(o) && !o.contains("=") ? 2 : 1;
        }
        return i;
    }

    /** Index just after the last top-level {@code &&}, {@code ||} or {@code ;} of a line (outside quotes). */
    private static int lastSeparator(String line) {
        int cut = 0;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else if (c == '\\' && quote == '"') i++;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                i++;
            } else if (c == ';') {
                cut = i + 1;
            } else if ((c == '&' || c == '|') && i + 1 < line.length() && line.charAt(i + 1) == c) {
                cut = i + 2;
                i++;
            }
        }
        return cut;
    }
}
