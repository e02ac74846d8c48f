package dev.crucible.verifier.pristine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a shell script the verifier command runs sources and runs in turn (blind round 13, x39: the committed
 * {@code scripts/run-tests.sh} sources an untracked {@code .env.test} when present, and an agent that adds one steers
 * grading). Each such file is a command file: graded from the task's copy, and absent at grading where the task's copy
 * lacks it. Read from the task's tree only; literal paths, with the script's own folder ({@code $(dirname "$0")})
 * and the folder its {@code cd} lines reach resolved; anything that needs another variable is left out.
 */
final class ShellScripts {
    private static final Pattern SEPARATORS = Pattern.compile("&&|\\|\\||;|\\|");
    private static final Pattern SCRIPT_DIR = Pattern.compile("\\$\\(\\s*dirname\\s+(?:\"\\$0\"|\\$0|\"\\$\\{0\\}\"|\\$\\{0\\})\\s*\\)|\\$\\{0%/\\*\\}");
    private static final Set<String> KEYWORDS = Set.of("if", "then", "do", "else", "elif", "while", "until", "!", "{", "(");
    private static final long MAX_BYTES = 256 * 1024;

    private ShellScripts() {}

    /** Adds to out what the shell script {@code rel} (tree-relative) sources and runs; nothing when it is no shell script. */
    static void follow(Path root, String rel, Set<String> out, int depth) {
        follow(root, rel, out, depth, false);
    }

    /** sourced: read by {@code .}/{@code source}, so shell whatever its name says. */
    private static void follow(Path root, String rel, Set<String> out, int depth, boolean sourced) {
        Path f = root.resolve(rel).normalize();
        String text;
        try {
            if (!f.startsWith(root) || !Files.isRegularFile(f) || Files.size(f) > MAX_BYTES) return;
            text = Files.readString(f);
        } catch (IOException | RuntimeException e) {
            return; // unreadable or not text: nothing to follow
        }
        String first = text.lines().findFirst().orElse("");
        if (!(sourced || rel.endsWith(".sh") || (first.startsWith("#!") && first.matches("#!.*\\b(ba|da|z|k)?sh\\b.*")))) return;
        String here = parent(root, f);
        String cwd = "";
        for (String line : text.replace("\\\n", " ").split("\r?\n")) {
            String code = line.strip();
            if (code.isEmpty() || code.startsWith("#")) continue;
            code = SCRIPT_DIR.matcher(code.replaceFirst("\\s#.*$", "")).replaceAll(Matcher.quoteReplacement(here.isEmpty() ? "." : here));
            for (String seg : SEPARATORS.split(code)) {
                List<String> w = words(seg);
                while (!w.isEmpty() && KEYWORDS.contains(w.get(0))) w.remove(0);
                if (w.isEmpty()) continue;
                String cmd = w.get(0);
                if (cmd.equals("cd") && w.size() == 2 && !w.get(1).contains("$")) {
                    String to = Path.of(CommandFiles.in(cwd, w.get(1))).normalize().toString();
                    if (!to.startsWith("..")) cwd = to;
                } else if ((cmd.equals(".") || cmd.equals("source")) && w.size() > 1 && !w.get(1).contains("$")) {
                    String src = CommandFiles.in(cwd, w.get(1));
                    if (out.add(src) && depth < CommandFiles.MAX_DEPTH) follow(root, Path.of(src).normalize().toString(), out, depth + 1, true);
                } else {
                    CommandFiles.commands(String.join(" ", w.stream().map(ShellScripts::quoted).toList()), root, cwd, out, depth);
                }
            }
        }
    }

    private static String parent(Path root, Path f) {
        Path p = root.relativize(f).getParent();
        return p == null ? "" : p.toString();
    }

    /** Whitespace-separated words with their quotes taken off (no expansion: a word with $ stays as it is). */
    private static List<String> words(String seg) {
        List<String> out = new ArrayList<>();
        for (String s : seg.strip().split("\\s+")) {
            String w = s.replace("\"", "").replace("'", "");
            if (!w.isEmpty()) out.add(w);
        }
        return out;
    }

    private static String quoted(String w) {
        return w.matches("[A-Za-z0-9_./=:,+@%-]*") ? w : "'" + w.replace("'", "'\\''") + "'";
    }
}
