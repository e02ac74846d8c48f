package dev.crucible.verifier.monitor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which Python files of the workspace graded execution may import or run: a static import closure, built to
 * err towards "reachable". Roots are every module the tree had at reset (the graded tests were written
 * against it), start-up hooks, top-level modules and packages and those beside test files (a new name there
 * may shadow one the tests import), conftest.py files where pytest collects, and a reachable package's
 * {@code __main__.py} (a test may run {@code python -m}). Edges are imports, module names and .py paths in
 * strings (plugin lists, {@code -m} arguments, subprocess commands). One reachable file whose imports are
 * unknown (not parsed, too big) or computed (import_module of a variable, exec of built code) makes every
 * file reachable. Source findings on the rest are info: grading never runs them.
 */
final class Reachability {
    /** A file's links as the syntax helper reported them; {@code known=false}: not analysed, anything possible. */
    record Links(boolean known, List<String> imports, String dynamic) {
        static final Links UNKNOWN = new Links(false, List.of(), null);
    }

    private static final Pattern TEST_FILE = Pattern.compile("(.*/)?(test_[^/]*|[^/]*_test)\\.py");
    private static final Pattern IDENT = Pattern.compile("[A-Za-z_]\\w*");

    private final Set<String> reachable = new HashSet<>();
    private String everything; // why every file is reachable, or null
    private final Set<String> collectedDirs = new HashSet<>();

    private Reachability() {}

    /**
     * @param links   every .py file present now, with its links
     * @param atReset the files the tree had at reset
     * @param startupHook the files the interpreter runs at start-up wherever they are (sitecustomize.py ...)
     */
    static Reachability of(Map<String, Links> links, Set<String> atReset, java.util.function.Predicate<String> startupHook) {
        return of(links, atReset, startupHook, Set.of());
    }

    /**
     * @param configNames module names the test runner's config files name ({@code -p plugin}, entry points): what
     *                    they ask pytest to load counts as run, even where grading leaves the file out (an attempt)
     */
    static Reachability of(Map<String, Links> links, Set<String> atReset, java.util.function.Predicate<String> startupHook,
                           Set<String> configNames) {
        Reachability r = new Reachability();
        for (String f : atReset) if (TEST_FILE.matcher(f).matches()) r.collectedDirs.add(dir(f));
        Map<String, List<String>> byName = new HashMap<>();
        for (String f : links.keySet()) for (String n : names(f)) byName.computeIfAbsent(n, k -> new ArrayList<>()).add(f);
        Deque<String> todo = new ArrayDeque<>();
        for (String f : links.keySet()) if (r.root(f, atReset, startupHook)) todo.add(f);
        for (String m : configNames) todo.addAll(byName.getOrDefault(m, List.of()));
        while (!todo.isEmpty() && r.everything == null) {
            String f = todo.poll();
            if (!r.reachable.add(f)) continue;
            Links l = links.get(f);
            if (!l.known()) r.everything = f + " could not be analysed for its imports";
            else if (l.dynamic() != null) r.everything = f + " imports or runs something computed: " + l.dynamic();
            if (f.endsWith("/__init__.py")) {
                String main = f.substring(0, f.length() - "__init__.py".length()) + "__main__.py";
                if (links.containsKey(main)) todo.add(main);
            }
            for (String m : l.imports()) {
                if (m.startsWith("path:")) {
                    String p = m.substring(5).replace('\\', '/').replaceFirst("^\\./", "");
                    for (String g : links.keySet()) if (g.equals(p) || g.endsWith("/" + p) || p.endsWith("/" + g)) todo.add(g);
                    continue;
                }
                String prefix = null;
                for (String part : m.split("\\.")) {
                    prefix = prefix == null ? part : prefix + "." + part;
                    todo.addAll(byName.getOrDefault(prefix, List.of()));
                }
            }
        }
        return r;
    }

    boolean reachable(String rel) { return everything != null || reachable.contains(rel); }

    /** Why grading never runs {@code rel} (for a file that is not reachable). */
    String why(String rel) {
        if (rel.endsWith("conftest.py") && !reachable.contains(rel)) {
            return "not imported by graded execution: a conftest.py outside the folders pytest collects for grading ("
                    + (collectedDirs.isEmpty() ? "none" : String.join(", ", collectedDirs.stream().map(d -> d.isEmpty() ? "." : d).sorted().toList())) + ")";
        }
        return "not imported by graded execution: no module that grading imports or runs names it, and the tree had no such module at reset";
    }

    private boolean root(String f, Set<String> atReset, java.util.function.Predicate<String> startupHook) {
        if (atReset.contains(f) || startupHook.test(f)) return true;
        String d = dir(f);
        String name = f.substring(f.lastIndexOf('/') + 1);
        if (name.equals("conftest.py")) {
            if (collectedDirs.isEmpty()) return true;
            for (String c : collectedDirs) if (within(d, c) || within(c, d)) return true;
            return false;
        }
        if (d.isEmpty() || collectedDirs.contains(d) || d.equals("src")) return true; // a top-level module, or one on sys.path
        return name.equals("__init__.py") && !d.contains("/"); // a top-level package
    }

    /** True when {@code inner} is {@code outer} or below it ("" is the root). */
    private static boolean within(String inner, String outer) {
        return outer.isEmpty() || inner.equals(outer) || inner.startsWith(outer + "/");
    }

    private static String dir(String f) {
        int i = f.lastIndexOf('/');
        return i < 0 ? "" : f.substring(0, i);
    }

    /** The module names a file may be imported by: its dotted path from every folder above it. */
    static Set<String> names(String rel) {
        String[] parts = rel.substring(0, rel.length() - 3).split("/");
        int n = parts[parts.length - 1].equals("__init__") ? parts.length - 1 : parts.length;
        Set<String> out = new HashSet<>();
        for (int i = n - 1; i >= 0; i--) {
            if (!IDENT.matcher(parts[i]).matches()) break;
            out.add(String.join(".", java.util.Arrays.asList(parts).subList(i, n)));
        }
        return out;
    }
}
