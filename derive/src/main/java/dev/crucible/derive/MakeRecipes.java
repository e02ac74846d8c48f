package dev.crucible.derive;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What a make target runs, read from the repository's Makefile: a target is a test run when its recipe
 * (or a prerequisite's) runs a test command, whatever it is called ({@code richtest:} running pytest).
 * Only plain rules are read: no includes, pattern rules or variable expansion beyond {@code $(MAKE)}.
 */
final class MakeRecipes {
    /** No Makefile to read: targets are judged by name only. */
    static final MakeRecipes NONE = new MakeRecipes(path -> null, "");

    private static final int MAX_DEPTH = 4;
    private final Function<String, String> readFile;
    private final String baseDir;
    private final Map<String, Map<String, Rule>> parsed = new LinkedHashMap<>();

    private record Rule(List<String> prerequisites, List<String> recipe) {
    }

    /**
     * @param readFile reads a repository file by its path from the root (null when absent)
     * @param baseDir  the step's working directory relative to the root ("" for the root)
     */
    MakeRecipes(Function<String, String> readFile, String baseDir) {
        this.readFile = readFile;
        this.baseDir = baseDir == null ? "" : strip(baseDir);
    }

    /**
     * What running {@code target} with make in {@code dir} (relative to the base; -C) from {@code file}
     * (-f, or the usual Makefile names) comes to: the strongest kind among its recipe lines and
     * prerequisites, or null when the Makefile or the target cannot be found.
     */
    CommandClassifier.Classified classify(String dir, String file, String target) {
        return classify(dir, file, target, 0, new HashSet<>());
    }

    private CommandClassifier.Classified classify(String dir, String file, String target, int depth, Set<String> seen) {
        Map<String, Rule> rules = rules(dir, file);
        Rule rule = rules == null ? null : rules.get(target);
        if (rule == null || depth > MAX_DEPTH || !seen.add(target)) {
            return null;
        }
        CommandClassifier.Classified best = null;
        for (String line : rule.recipe()) {
            String command = line.replaceFirst("^[@+-]+", "").replace("$(MAKE)", "make").replace("${MAKE}", "make")
                    .replaceAll("\\$[({](PYTEST|pytest)[)}]", "pytest")
                    .replaceAll("\\$[({][A-Za-z_]*(PYTHON|python|PY)[A-Za-z_]*[)}]", "python");
            CommandClassifier.Classified c = CommandClassifier.classifyLine(command, this);
            best = stronger(best, c);
        }
        for (String p : rule.prerequisites()) {
            best = stronger(best, classify(dir, file, p, depth + 1, seen));
        }
        if (best == null || best.kind() == CommandKind.OTHER || best.kind() == CommandKind.INSTALL) {
            return best;
        }
        return new CommandClassifier.Classified(best.kind(), "make " + target + " → " + best.what());
    }

    private static CommandClassifier.Classified stronger(CommandClassifier.Classified a, CommandClassifier.Classified b) {
        if (b == null) {
            return a;
        }
        return a == null || StepPlanner.rank(b.kind()) > StepPlanner.rank(a.kind()) ? b : a;
    }

    /** A repository file relative to the step's working directory (pyproject.toml for poe), or null. */
    String read(String name) {
        return readFile.apply(join(baseDir, name));
    }

    private Map<String, Rule> rules(String dir, String file) {
        String folder = join(baseDir, dir == null ? "" : strip(dir));
        List<String> names = file != null ? List.of(file) : List.of("GNUmakefile", "makefile", "Makefile");
        for (String name : names) {
            String path = join(folder, name);
            if (parsed.containsKey(path)) {
                return parsed.get(path);
            }
            String text = readFile.apply(path);
            if (text != null) {
                Map<String, Rule> rules = parse(text);
                parsed.put(path, rules);
                return rules;
            }
        }
        return null;
    }

    /** Plain rules {@code a b: deps} followed by tab-indented recipe lines; continuations joined. */
    static Map<String, Rule> parse(String text) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        List<Rule> current = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String raw : text.split("\n", -1)) {
            if (raw.endsWith("\\")) {
                pending.append(raw, 0, raw.length() - 1).append(' ');
                continue;
            }
            String line = pending.append(raw).toString();
            pending.setLength(0);
            if (line.startsWith("\t")) {
                String cmd = line.strip();
                if (!cmd.isEmpty() && !cmd.startsWith("#")) {
                    current.forEach(r -> r.recipe().add(cmd));
                }
                continue;
            }
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            boolean assignment = line.matches("^[^:#=]*[?:+!]?=.*") || colon >= 0 && line.startsWith("=", colon + 1);
            if (colon <= 0 || assignment) {
                current = new ArrayList<>();
                continue;
            }
            String after = line.substring(colon + 1).replaceFirst("^:", "");
            int semi = after.indexOf(';');
            String deps = semi >= 0 ? after.substring(0, semi) : after;
            current = new ArrayList<>();
            for (String t : line.substring(0, colon).strip().split("\\s+")) {
                if (t.isEmpty() || t.startsWith(".") || t.contains("%") || t.contains("$")) {
                    continue;
                }
                Rule r = new Rule(new ArrayList<>(List.of(deps.strip().isEmpty() ? new String[0]
                        : deps.strip().split("\\s+"))), new ArrayList<>());
                if (semi >= 0 && !after.substring(semi + 1).isBlank()) {
                    r.recipe().add(after.substring(semi + 1).strip());
                }
                rules.putIfAbsent(t, r);
                current.add(rules.get(t));
            }
        }
        return rules;
    }

    private static String strip(String dir) {
        String d = dir.strip();
        while (d.startsWith("./")) {
            d = d.substring(2);
        }
        return d.equals(".") ? "" : d.replaceAll("/+$", "");
    }

    private static String join(String dir, String name) {
        if (name.startsWith("/")) {
            return name.substring(1);
        }
        return dir.isEmpty() ? name : dir + "/" + name;
    }
}
