package dev.crucible.verifier.monitor;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A command that changes a file grading owns (a test file, a folder of them): the box refuses the write, so the
 * tree shows nothing, but the attempt is in the command line the sampler reads. Only commands whose arguments are
 * the files they change count ({@code rm}, {@code mv}, {@code chmod}, {@code truncate}, {@code sed -i}, {@code git rm}…;
 * for {@code cp}, {@code ln -s} and {@code install} only the destination, for a hard {@code ln} every name); reading a test ({@code cat}, {@code cp} from it,
 * {@code grep}) is not one. Shell redirections never reach a command line, so {@code echo > tests/x} is not seen.
 */
final class ProtectedWrites {
    private static final Set<String> ALL_ARGS = Set.of("rm", "unlink", "rmdir", "shred", "truncate", "chmod", "chown", "touch", "mv");
    private static final Set<String> LAST_ARG = Set.of("cp", "ln", "install", "tee", "dd");

    private ProtectedWrites() {}

    /** The first protected path {@code cmd} would change, relative to the workspace, or null. */
    static String target(String cmd, String cwd, Path ws, Predicate<Path> isProtected) {
        if (cwd == null || ws == null) return null;
        List<String> w = List.of(cmd.trim().split("\\s+"));
        if (w.isEmpty()) return null;
        String prog = Path.of(w.get(0)).getFileName() == null ? "" : Path.of(w.get(0)).getFileName().toString();
        List<String> args = w.subList(1, w.size());
        if (prog.equals("git") && !args.isEmpty() && (args.get(0).equals("rm") || args.get(0).equals("mv"))) args = args.subList(1, args.size());
        else if (prog.equals("sed") || prog.equals("perl")) {
            if (args.stream().noneMatch(a -> a.startsWith("-i") || a.equals("--in-place") || a.matches("-[a-zA-Z]*i[a-zA-Z]*"))) return null;
        } else if (prog.equals("ln") && args.stream().noneMatch(a -> a.equals("--symbolic") || a.matches("-[a-zA-Z]*s[a-zA-Z]*"))) {
            // a hard link of a protected file is a second name to write it through (blind round 10, x29): every name counts
        } else if (LAST_ARG.contains(prog)) {
            if (prog.equals("tee")) args = args.stream().filter(a -> !a.startsWith("-")).toList();
            else if (prog.equals("dd")) args = args.stream().filter(a -> a.startsWith("of=")).map(a -> a.substring(3)).toList();
            else args = args.isEmpty() ? args : args.subList(args.size() - 1, args.size());
        } else if (!ALL_ARGS.contains(prog)) {
            return null;
        }
        Path here = Path.of(cwd);
        Path root = ws.toAbsolutePath().normalize();
        for (String a : args) {
            if (a.startsWith("-") || a.isEmpty()) continue;
            Path p;
            try {
                p = here.resolve(a).normalize();
            } catch (RuntimeException e) {
                continue; // not a path
            }
            if (!p.startsWith(root) || p.equals(root)) continue;
            Path rel = root.relativize(p);
            if (isProtected.test(rel)) return rel.toString();
        }
        return null;
    }
}
