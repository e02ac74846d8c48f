package dev.crucible.verifier.pristine;

import dev.crucible.verifier.grade.shell.ShellWords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of the tree that the verifier command itself runs (blind round 12, x25/x42): the Makefile a {@code make}
 * line reads and the files it includes, a script a line runs ({@code ./ci/test.sh}, {@code bash scripts/test},
 * {@code python run_tests.py}), tox's and nox's configuration; what the recipes of the targets a {@code make} line makes
 * run, and what a shell script found so sources or runs ({@link ShellScripts}: blind round 13, x39/x42). They are the grader's: the grading tree takes them from
 * the task's copy, as it does the protected tests, so whatever the agent writes there never decides how grading runs
 * (an agent may still edit them: the monitor records it as info, {@link ProtectedPaths#runsFromPristine}); one the task's
 * copy lacks (an untracked {@code .env.test} the committed script sources) is absent at grading. A file the command
 * reaches only through a variable cannot be known here; the result
 * channel's secrets do not travel in the wrapper's environment for that reason ({@code WrappedGrading}).
 */
public final class CommandFiles {
    private static final Pattern SEPARATORS = Pattern.compile("\\n|&&|\\|\\||;|\\|");
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");
    private static final Pattern INCLUDE = Pattern.compile("^\\s*-?s?include\\s+(.+)$", Pattern.MULTILINE);
    private static final Set<String> PREFIXES = Set.of("env", "exec", "time", "command", "nice", "nohup");
    private static final Set<String> SHELLS = Set.of("sh", "bash", "dash", "zsh", "ksh");
    private static final int MAX_INCLUDES = 32;
    static final int MAX_DEPTH = 4;

    private CommandFiles() {}

    /** The tree-relative files {@code command} runs; {@code root} (the task's tree, may be null) resolves a Makefile's includes. */
    public static List<String> of(String command, Path root) {
        Set<String> out = new LinkedHashSet<>();
        if (command == null) return List.of();
        commands(command, root, "", out, 0);
        Set<String> rel = new LinkedHashSet<>();
        for (String f : out) {
            String n = Path.of(f).normalize().toString();
            if (!n.isEmpty() && !n.startsWith("..") && !Path.of(n).isAbsolute() && !n.contains("$")) rel.add(n);
        }
        return List.copyOf(rel);
    }

    /** The files the lines of {@code command}, run in the tree's folder {@code dir} ("" for its root), run. */
    static void commands(String command, Path root, String dir, Set<String> out, int depth) {
        for (String segment : SEPARATORS.split(command)) {
            List<String> w = new ArrayList<>(ShellWords.split(segment.strip()));
            while (!w.isEmpty() && (ASSIGNMENT.matcher(w.get(0)).matches() || PREFIXES.contains(w.get(0)) || w.get(0).startsWith("-"))) w.remove(0);
            if (w.isEmpty()) continue;
            String prog = w.get(0);
            String name = prog.substring(prog.lastIndexOf('/') + 1);
            int before = out.size();
            if (name.equals("make") || name.equals("gmake")) make(w, root, dir, out, depth);
            else if (name.equals("tox")) out.add(in(dir, option(w, "-c", "--conf").orElse("tox.ini")));
            else if (name.equals("nox")) out.add(in(dir, option(w, "-f", "--noxfile").orElse("noxfile.py")));
            else if (name.equals("just")) List.of("justfile", "Justfile", ".justfile").forEach(j -> out.add(in(dir, j)));
            else if (SHELLS.contains(name) || name.startsWith("python")) script(w, dir, out);
            // a relative program is the tree's script; an interpreter or runner under a virtual environment's bin/ is setup's
            if (prog.contains("/") && !prog.startsWith("/") && !name.startsWith("python") && !name.startsWith("pytest") && !name.equals("py.test")) out.add(in(dir, prog));
            // a shell script found here: what it sources and runs is the grader's too (blind round 13, x39/x42)
            if (root != null && depth < MAX_DEPTH && (SHELLS.contains(name) || prog.contains("/")) && out.size() > before) {
                for (String f : new ArrayList<>(out).subList(before, out.size())) ShellScripts.follow(root, f, out, depth + 1);
            }
        }
    }

    static String in(String dir, String file) {
        return dir.isEmpty() || file.startsWith("/") ? file : dir + "/" + file;
    }

    /**
     * {@code make [-C dir] [-f file] [targets]}: the makefile (GNU make's three names where none is named), its literal
     * includes, and what the recipes of the targets it makes (and their prerequisites) run (blind round 13, x42).
     */
    private static void make(List<String> w, Path root, String cwd, Set<String> out, int depth) {
        String dir = in(cwd, option(w, "-C", "--directory").orElse(""));
        String file = option(w, "-f", "--file").or(() -> option(w, null, "--makefile")).orElse(null);
        List<String> makefiles = file != null ? List.of(file) : List.of("GNUmakefile", "makefile", "Makefile");
        Set<String> read = new LinkedHashSet<>();
        for (String m : makefiles) {
            String rel = dir.isEmpty() ? m : dir + "/" + m;
            int before = out.size();
            out.add(rel);
            if (root != null) includes(root, dir, rel, out, 0);
            if (root != null && read.isEmpty() && Files.isRegularFile(root.resolve(rel))) { // make reads the first that exists
                read.add(rel);
                read.addAll(new ArrayList<>(out).subList(Math.min(before + 1, out.size()), out.size()));
            }
        }
        if (root == null || read.isEmpty() || depth >= MAX_DEPTH) return;
        for (String line : MakeRecipes.of(root, List.copyOf(read), MakeRecipes.targets(w))) commands(line, root, dir, out, depth + 1);
    }

    private static void includes(Path root, String dir, String makefile, Set<String> out, int depth) {
        Path f = root.resolve(makefile).normalize();
        if (depth > 3 || out.size() > MAX_INCLUDES || !f.startsWith(root) || !Files.isRegularFile(f)) return;
        try {
            Matcher m = INCLUDE.matcher(Files.readString(f));
            while (m.find()) {
                for (String inc : m.group(1).split("\\s+")) {
                    if (inc.isEmpty() || inc.contains("$") || inc.contains("*") || inc.startsWith("#")) continue;
                    String rel = dir.isEmpty() ? inc : dir + "/" + inc;
                    if (out.add(rel)) includes(root, dir, rel, out, depth + 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable or not text: its includes stay the agent's, and the channel's secrets are not in the wrapper's environment
        }
    }

    /** {@code bash script.sh}, {@code python run_tests.py}: the first argument that is no option, unless {@code -c}/{@code -m}. */
    private static void script(List<String> w, String dir, Set<String> out) {
        for (int i = 1; i < w.size(); i++) {
            String a = w.get(i);
            if (a.equals("-c") || a.equals("-m")) return;
            if (a.startsWith("-")) continue;
            out.add(in(dir, a));
            return;
        }
    }

    /** The value of {@code -X value}, {@code -Xvalue} or {@code --long=value}. */
    static java.util.Optional<String> option(List<String> w, String shortName, String longName) {
        for (int i = 1; i < w.size(); i++) {
            String a = w.get(i);
            if (shortName != null && a.equals(shortName) && i + 1 < w.size()) return java.util.Optional.of(w.get(i + 1));
            if (shortName != null && a.startsWith(shortName) && a.length() > shortName.length() && !a.startsWith("--")) return java.util.Optional.of(a.substring(shortName.length()));
            if (a.startsWith(longName + "=")) return java.util.Optional.of(a.substring(longName.length() + 1));
            if (a.equals(longName) && i + 1 < w.size()) return java.util.Optional.of(w.get(i + 1));
        }
        return java.util.Optional.empty();
    }
}
