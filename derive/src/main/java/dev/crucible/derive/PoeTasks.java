package dev.crucible.derive;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code poe TASK} (poethepoet) runs, read from {@code [tool.poe.tasks]} in pyproject.toml: a task
 * is a command string, a list of other tasks, or a table with {@code cmd}, {@code shell}, {@code script}
 * or {@code sequence}. Only these shapes are read (no TOML library: a line reader for the common forms).
 */
final class PoeTasks {
    private static final Pattern STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'");
    private static final int MAX_DEPTH = 5;

    private PoeTasks() {
    }

    /** The kind of {@code poe TASK ...} (words after unwrapping), or OTHER when pyproject has no such task. */
    static CommandClassifier.Classified classify(List<String> words, MakeRecipes recipes) {
        String task = null;
        for (int i = 1; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("-C") || w.equals("--root") || w.equals("-e") || w.equals("--executor")) {
                i++;
            } else if (!w.startsWith("-")) {
                task = w;
                break;
            }
        }
        String text = recipes.read("pyproject.toml");
        if (task == null || text == null) {
            return CommandClassifier.other();
        }
        Map<String, List<String>> tasks = parse(text);
        CommandClassifier.Classified c = classify(tasks, task, recipes, 0, new HashSet<>());
        return c.kind() == CommandKind.OTHER || c.kind() == CommandKind.INSTALL ? c
                : new CommandClassifier.Classified(c.kind(), "poe " + task + " → " + c.what());
    }

    private static CommandClassifier.Classified classify(Map<String, List<String>> tasks, String task,
            MakeRecipes recipes, int depth, Set<String> seen) {
        List<String> parts = tasks.get(task);
        CommandClassifier.Classified best = CommandClassifier.other();
        if (parts == null || depth > MAX_DEPTH || !seen.add(task)) {
            return best;
        }
        for (String part : parts) {
            CommandClassifier.Classified c = tasks.containsKey(part) ? classify(tasks, part, recipes, depth + 1, seen)
                    : CommandClassifier.classifyLine(part, recipes);
            if (StepPlanner.rank(c.kind()) > StepPlanner.rank(best.kind())) {
                best = c;
            }
        }
        return best;
    }

    /** Task name to its commands or referenced task names, in order. */
    static Map<String, List<String>> parse(String toml) {
        Map<String, List<String>> tasks = new LinkedHashMap<>();
        String section = null;
        String current = null;
        StringBuilder pending = null;
        String pendingKey = null;
        for (String raw : toml.split("\n")) {
            String line = raw.strip();
            if (pending != null) {
                pending.append(' ').append(line);
                if (balanced(pending.toString())) {
                    assign(tasks, section, current, pendingKey, pending.toString());
                    pending = null;
                }
                continue;
            }
            if (line.startsWith("[")) {
                String name = line.replaceAll("^\\[+|\\]+.*$", "").strip();
                section = name.equals("tool.poe.tasks") ? "tasks" : name.startsWith("tool.poe.tasks.") ? "task" : null;
                current = section != null && section.equals("task") ? unquote(name.substring("tool.poe.tasks.".length())) : null;
                continue;
            }
            int eq = line.indexOf('=');
            if (section == null || eq <= 0 || line.startsWith("#")) {
                continue;
            }
            String key = unquote(line.substring(0, eq).strip());
            String value = line.substring(eq + 1).strip();
            if (!balanced(value)) {
                pending = new StringBuilder(value);
                pendingKey = key;
                continue;
            }
            assign(tasks, section, current, key, value);
        }
        return tasks;
    }

    private static void assign(Map<String, List<String>> tasks, String section, String current, String key, String value) {
        if (section.equals("tasks")) {
            List<String> parts = strings(value.contains("{") ? fields(value) : value);
            tasks.put(key, parts);
        } else if (current != null && List.of("cmd", "shell", "sequence", "ref").contains(key)) {
            tasks.computeIfAbsent(current, k -> new ArrayList<>()).addAll(strings(value));
        }
    }

    /** In {@code { cmd = "x" }} and {@code [{ ref = "lint" }, ...]}, keeps only the cmd/shell/ref values. */
    private static String fields(String value) {
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("\\b(cmd|shell|ref)\\s*=\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*')").matcher(value);
        while (m.find()) {
            out.append(m.group(2)).append(' ');
        }
        return out.toString();
    }

    private static List<String> strings(String value) {
        List<String> out = new ArrayList<>();
        Matcher m = STRING.matcher(value);
        while (m.find()) {
            String s = m.group(1) != null ? m.group(1).replace("\\\"", "\"") : m.group(2);
            out.addAll(CommandClassifier.logicalLines(s));
        }
        return out;
    }

    private static boolean balanced(String value) {
        int depth = 0;
        boolean inString = false;
        char quote = 0;
        for (char c : value.toCharArray()) {
            if (inString) {
                if (c == quote) {
                    inString = false;
                }
            } else if (c == '"' || c == '\'') {
                inString = true;
                quote = c;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                depth--;
            }
        }
        return depth <= 0 && !inString;
    }

    private static String unquote(String s) {
        return s.replaceAll("^[\"']|[\"']$", "");
    }
}
