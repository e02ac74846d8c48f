package dev.crucible.verifier.pristine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The recipe lines a {@code make} line runs (blind round 13, x42: {@code test: sh scripts/run-tests.sh}, a script the
 * agent rewrote and grading ran from its copy): the rules of the makefiles it reads, followed from the targets it
 * names (the first target where it names none) through their prerequisites. Literal text only: a line that needs a
 * variable's value is left to {@link CommandFiles}' word rules, which drop what they cannot read.
 */
final class MakeRecipes {
    /** A rule line: targets, then ':' or '::' not followed by '=' (that is an assignment), then prerequisites. */
    private static final Pattern RULE = Pattern.compile("^([^\\t#=:][^=:]*?)\\s*::?(?!=)\\s*(.*)$");
    /** make's options that take the next word as their value: that word is no target. */
    private static final Set<String> VALUED = Set.of("-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile",
            "--include-dir", "--old-file", "--what-if", "--assume-old", "--assume-new", "--new-file");
    private static final int MAX_TARGETS = 32;
    private static final long MAX_BYTES = 1 << 20;

    private record Rule(List<String> prereqs, List<String> recipe) {}

    private MakeRecipes() {}

    /** The targets a make command line names (its words after the program that are no option, value or assignment). */
    static List<String> targets(List<String> words) {
        List<String> out = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String a = words.get(i);
            if (VALUED.contains(a) || (a.equals("-j") && i + 1 < words.size() && words.get(i + 1).matches("\\d+"))) i++;
            else if (!a.startsWith("-") && !a.contains("=")) out.add(a);
        }
        return out;
    }

    /** The recipe lines (with make's @, - and + prefixes removed) of {@code goals} and their prerequisites, in order. */
    static List<String> of(Path root, List<String> makefiles, List<String> goals) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        String first = null;
        for (String m : makefiles) {
            Path f = root.resolve(m).normalize();
            try {
                if (!f.startsWith(root) || !Files.isRegularFile(f) || Files.size(f) > MAX_BYTES) continue;
                first = parse(Files.readString(f), rules, first);
            } catch (IOException | RuntimeException e) {
                // unreadable or not text: no recipes from it (its own path is still the grader's)
            }
        }
        Deque<String> todo = new ArrayDeque<>(goals.isEmpty() && first != null ? List.of(first) : goals);
        Set<String> seen = new LinkedHashSet<>();
        List<String> out = new ArrayList<>();
        while (!todo.isEmpty() && seen.size() < MAX_TARGETS) {
            String t = todo.removeFirst();
            Rule r = rules.get(t);
            if (!seen.add(t) || r == null) continue;
            todo.addAll(r.prereqs());
            out.addAll(r.recipe());
        }
        return out;
    }

    /** Adds text's rules to rules; returns the default goal (the first target that is no special or pattern target). */
    private static String parse(String text, Map<String, Rule> rules, String first) {
        List<String> current = List.of();
        for (String line : text.replace("\\\r\n", " ").replace("\\\n", " ").split("\r?\n")) {
            if (line.startsWith("\t")) {
                String cmd = line.strip().replaceFirst("^[@+\\-]+", "").strip();
                if (!cmd.isEmpty() && !cmd.startsWith("#")) for (String t : current) rules.get(t).recipe().add(cmd);
                continue;
            }
            String code = line.replaceFirst("(^|\\s)#.*$", "");
            Matcher m = RULE.matcher(code);
            if (code.isBlank() || !m.matches()) {
                if (!code.isBlank()) current = List.of(); // an assignment or directive ends the rule's recipe
                continue;
            }
            String deps = m.group(2), inline = null;
            int semi = deps.indexOf(';');
            if (semi >= 0) {
                inline = deps.substring(semi + 1).strip();
                deps = deps.substring(0, semi);
            }
            List<String> targets = List.of(m.group(1).strip().split("\\s+"));
            for (String t : targets) {
                Rule r = rules.computeIfAbsent(t, k -> new Rule(new ArrayList<>(), new ArrayList<>()));
                for (String d : deps.strip().split("\\s+")) if (!d.isEmpty() && !d.equals("|")) r.prereqs().add(d);
                if (inline != null && !inline.isEmpty()) r.recipe().add(inline);
                if (first == null && !t.startsWith(".") && !t.contains("%") && !t.contains("$")) first = t;
            }
            current = targets;
        }
        return first;
    }
}
