package dev.crucible.verifier.grade;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.grade.oracle.OracleFiles;
import dev.crucible.verifier.grade.runner.Runners;
import dev.crucible.verifier.grade.runner.TestCommand;
import dev.crucible.verifier.grade.runner.UnittestRunner;
import dev.crucible.verifier.toolchain.GraderPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How the isolated oracle enters test processes the grader does not start itself (issues 33 and 35): pytest reached
 * through a wrapper ({@code make ci}, {@code scripts/test}, tox, {@code VAR=… py.test}) takes the oracle's plugin through
 * the environment ({@code -p oracle_plugin} in {@code PYTEST_ADDOPTS} after the reporter, its folder on
 * {@code PYTHONPATH}, the configuration in {@link OracleFiles#CONFIG_VAR}); unittest ({@code python -m unittest},
 * {@code python test.py}) through the grader's unittest shim, which loads {@code oracle_unittest} before any test
 * module. The configuration names the grading interpreter: a process that runs another one, or in which the tree's
 * code ran before the oracle could load, refuses it ({@code oracle_entry.py}) and says why in the record, and its tests
 * are graded in-process by the reporter, each labelled with that reason.
 */
final class OracleEntry {
    private static final ObjectMapper JSON = new ObjectMapper();

    private OracleEntry() {}

    /**
     * Whether {@code v}'s command (not pytest-shaped: see {@link PytestCommand#pytestArgs}) may start a pytest or
     * unittest process that takes the oracle: unittest, pytest behind a prefix or wrapper, a command of several runner
     * lines with one of those; never a command of another runner (go, cargo, a JS runner), nor a tree with no Python.
     */
    static boolean applies(VerifierSpec v, GradeContext ctx) {
        String fw = v.framework();
        if (ctx.python() == null || (fw != null && !fw.equals("pytest") && !fw.equals("unittest"))) return false;
        List<String> lines = RunnerLines.split(v.command(), ctx.root());
        for (String line : lines.isEmpty() ? List.of(v.command()) : lines) {
            Optional<Runners.Resolved> r = Runners.resolve(line, ctx.root());
            if (r.isPresent()) {
                if (r.get().runner() instanceof UnittestRunner) return true;
                continue; // go, cargo, a JS runner: tests and code are one program
            }
            if (hasPython(ctx.root())) return true;
        }
        return false;
    }

    /** The configuration for an entry the grader does not start: it names the grading interpreter (the workers'). */
    static void forEntry(Path config, String python, Map<String, String> env) {
        try {
            ObjectNode n = (ObjectNode) JSON.readTree(config.toFile());
            n.put("python", onPath(python, env.get("PATH")));
            // in a pod the interpreter is the grading container's, not on this file system: the process resolves it there
            if (env.get("PATH") != null) n.put("python_path", env.get("PATH"));
            Files.write(config, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
        } catch (IOException | ClassCastException e) {
            throw new UncheckedIOException("amending the oracle configuration " + config, e instanceof IOException io ? io : new IOException(e));
        }
    }

    /** A unittest script run as {@code python test.py}: a test file, masked in the workers' view of the tree. */
    static List<String> scriptMasks(VerifierSpec v, GradeContext ctx) {
        List<String> out = new ArrayList<>();
        List<String> lines = RunnerLines.split(v.command(), ctx.root());
        for (String line : lines.isEmpty() ? List.of(v.command()) : lines) {
            TestCommand.parse(line).filter(c -> UnittestRunner.unittestScript(c, ctx.root()))
                    .map(c -> ctx.root().relativize(ctx.root().resolve(c.arg(1)).normalize()).toString()).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Adds the oracle's plugin to a pytest process reached through the environment: after the reporter's {@code -p}
     * (so the reporter registers first, as in the grader's own bootstrap), its folder on {@code PYTHONPATH} and on
     * {@link GraderPath#VAR} (a wrapper that sets PYTHONPATH itself), the configuration in the environment (the plugin
     * takes it out of its own process's environment when it loads).
     */
    static void pytest(GradeContext ctx, List<String> opts, Map<String, String> env) {
        if (ctx.oracleConfig() == null) return;
        int at = opts.indexOf(PytestReporter.MODULE);
        opts.addAll(at < 0 ? opts.size() : at + 1, List.of("-p", OracleFiles.PLUGIN));
        String dir = ctx.oracleConfig().getParent().toString();
        env.merge("PYTHONPATH", dir, (a, b) -> a.isBlank() ? b : a + ":" + b);
        env.merge(GraderPath.VAR, dir, (a, b) -> a.isBlank() ? b : a + ":" + b);
        env.put(OracleFiles.CONFIG_VAR, ctx.oracleConfig().toString());
    }

    /** The grader's unittest shim loads {@code oracle_unittest} from the configuration's folder. */
    static void unittest(GradeContext ctx, Map<String, String> env) {
        if (ctx.oracleConfig() != null) env.put(OracleFiles.CONFIG_VAR, ctx.oracleConfig().toString());
    }

    /** Why processes of the run could not take the oracle ({@code refused} in the record), in order. */
    static List<String> refusals(Path record) {
        List<String> out = new ArrayList<>();
        try {
            if (!Files.isRegularFile(record)) return out;
            JsonNode n = JSON.readTree(record.toFile());
            n.path("refused").forEach(r -> out.add(r.asText()));
        } catch (IOException | RuntimeException e) {
            // no record: the reason given is the general one
        }
        return out;
    }

    /** {@code python} as the grading environment's PATH resolves it (the workers' interpreter), where it names no folder. */
    static String onPath(String python, String path) {
        if (python.contains("/") || path == null) return python;
        for (String d : path.split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, python);
            if (!d.isEmpty() && Files.isExecutable(p)) return p.toString();
        }
        return python;
    }

    private static boolean hasPython(Path root) {
        try (Stream<Path> s = Files.walk(root, 4)) {
            return s.anyMatch(p -> p.getFileName() != null && p.getFileName().toString().endsWith(".py")
                    && !p.toString().contains("/node_modules/") && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
