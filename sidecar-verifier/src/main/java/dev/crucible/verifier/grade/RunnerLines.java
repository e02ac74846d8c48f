package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.runner.Runners;
import dev.crucible.verifier.grade.runner.TestCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A verifier command of several test-runner lines ({@code go test ./...} then {@code go test -tags
 * purego ./...}; {@code pytest toolz/} then {@code pytest bench/}), cut into one script per runner line
 * so that each is graded per test like a single-line command. Script K is every other line before runner
 * line K, in order ({@code cd}, {@code export}: what line K runs after), then line K; an earlier runner
 * line is not run again. Commands with control structures, heredocs or a runner line chained to another
 * command stay one script (graded as before).
 */
public final class RunnerLines {
    private static final Pattern CONTROL = Pattern.compile("^(if|then|else|elif|fi|for|while|until|do|done|case|esac|function)\\b|^[{}()]|<<");

    /** A structure opened and closed on one line ({@code if [[ -d x ]]; then …; fi}) cuts nothing. */
    private static final Pattern SELF_CONTAINED = Pattern.compile("^(if|for|while|until|case)\\b.*\\b(fi|done|esac)\\s*$");

    private RunnerLines() {}

    /** One script per runner line, or an empty list when the command has fewer than two or cannot be cut. */
    public static List<String> split(String command, Path root) {
        if (command == null) return List.of();
        List<String> lines = logicalLines(command);
        List<Integer> runners = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            if (CONTROL.matcher(l).find() && !SELF_CONTAINED.matcher(l).matches()) return List.of();
            if (isRunner(l, root)) {
                if (l.contains("&&") || l.contains("||") || l.contains(";") || l.contains("|")) return List.of();
                runners.add(i);
            }
        }
        if (runners.size() < 2) return List.of();
        List<String> out = new ArrayList<>();
        for (int k : runners) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < k; i++) {
                String l = lines.get(i).strip();
                if (!runners.contains(i) && !l.isEmpty() && !l.startsWith("#")) s.append(lines.get(i)).append('\n');
            }
            out.add(s.append(lines.get(k)).toString());
        }
        return out;
    }

    static boolean isRunner(String line, Path root) {
        if (Runners.resolve(line, root).isPresent()) return true;
        return TestCommand.parse(line).map(RunnerLines::isPytest).orElse(false);
    }

    static boolean isPytest(TestCommand c) {
        String p = c.program();
        return p.equals("pytest") || p.equals("py.test") || (c.runsPython() && c.arg(1).equals("-m") && c.arg(2).equals("pytest"));
    }

    /** Lines with backslash continuations joined. */
    private static List<String> logicalLines(String command) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String l : command.split("\n", -1)) {
            if (l.endsWith("\\")) {
                cur.append(l, 0, l.length() - 1).append(' ');
            } else {
                out.add(cur.append(l).toString());
                cur.setLength(0);
            }
        }
        if (!cur.isEmpty()) out.add(cur.toString());
        return out;
    }
}
