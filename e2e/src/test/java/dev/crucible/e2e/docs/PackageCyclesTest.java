package dev.crucible.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * No module has a package cycle, and no package is split across modules: read from the compiled
 * classes by the JDK's own jdeps (each module's target/classes, which the reactor built before e2e).
 * A cycle makes a reader go back and forth between packages; this keeps the sidecar, the CLI and the
 * rest from growing new knots.
 */
class PackageCyclesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noModuleHasAPackageCycle() throws Exception {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (Path classes : moduleClasses()) {
            for (String[] edge : packageEdges(classes)) graph.computeIfAbsent(edge[0], k -> new TreeSet<>()).add(edge[1]);
        }
        assertThat(graph).as("package edges read by jdeps").isNotEmpty();
        assertThat(cycles(graph)).as("package cycles (strongly connected sets of dev.crucible packages)").isEmpty();
    }

    /** The finder itself finds a cycle (a test that could not fail would prove nothing). */
    @Test
    void theFinderSeesACycle() {
        Map<String, Set<String>> g = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertThat(cycles(new TreeMap<>(g))).containsExactly(Set.of("a", "b", "c"));
    }

    @Test
    void noPackageIsSplitAcrossModules() throws Exception {
        Map<String, Set<String>> owners = new TreeMap<>();
        for (Path classes : moduleClasses()) {
            String module = ROOT.relativize(classes).getName(0).toString();
            try (var s = Files.walk(classes)) {
                s.filter(p -> p.toString().endsWith(".class")).map(p -> classes.relativize(p.getParent()).toString().replace('/', '.'))
                        .forEach(pkg -> owners.computeIfAbsent(pkg, k -> new TreeSet<>()).add(module));
            }
        }
        owners.values().removeIf(m -> m.size() < 2);
        assertThat(owners).as("packages whose classes come from more than one module").isEmpty();
    }

    private static List<Path> moduleClasses() throws Exception {
        List<Path> out = new ArrayList<>();
        try (var s = Files.list(ROOT)) {
            for (Path m : s.sorted().toList()) {
                Path c = m.resolve("target/classes/dev/crucible");
                if (Files.isRegularFile(m.resolve("pom.xml")) && Files.isDirectory(c)) out.add(m.resolve("target/classes"));
            }
        }
        assumeTrue(out.size() >= 8, "the modules are not compiled (run the reactor build first): " + out);
        return out;
    }

    /** "a -> b" lines of {@code jdeps -verbose:package} between two different dev.crucible packages. */
    private static List<String[]> packageEdges(Path classes) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "-verbose:package", "-filter:none", classes.toString());
        assertThat(rc).as("jdeps on " + classes + ":\n" + out).isZero();
        List<String[]> edges = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length >= 3 && w[1].equals("->") && w[0].startsWith("dev.crucible") && w[2].startsWith("dev.crucible") && !w[0].equals(w[2])) {
                edges.add(new String[] {w[0], w[2]});
            }
        }
        return edges;
    }

    /** Tarjan's strongly connected components with more than one package. */
    static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : g.keySet()) if (!index.containsKey(v)) connect(v, g, index, low, stack, onStack, out, next);
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> g, Map<String, Integer> index, Map<String, Integer> low,
                                Deque<String> stack, Set<String> onStack, List<Set<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, g, index, low, stack, onStack, out, next);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) out.add(component);
        }
    }
}
