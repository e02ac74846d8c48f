package dev.crucible.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The controllers' packages form no cycle, and the shared pieces (labels, owner references, security
 * defaults, the pod layout) live in {@code common}, which depends on no other package here. Read from the
 * sources' imports, so a new import that closes a cycle fails here.
 */
class PackageDependenciesTest {

    private static final Path SOURCES = Path.of("src/main/java/dev/crucible/controllers");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.crucible\\.controllers\\.([a-z]+)\\.", Pattern.MULTILINE);

    static Map<String, Set<String>> graph() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = SOURCES.relativize(f).getName(0).toString();
                Set<String> to = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) to.add(m.group(1));
                }
            }
        }
        return uses;
    }

    /** Each cycle found by depth-first search, as the path that closes it. */
    static List<List<String>> cycles(Map<String, Set<String>> graph) {
        List<List<String>> found = new ArrayList<>();
        for (String start : graph.keySet()) {
            walk(graph, new ArrayList<>(List.of(start)), found);
        }
        return found;
    }

    private static void walk(Map<String, Set<String>> graph, List<String> path, List<List<String>> found) {
        for (String next : graph.getOrDefault(path.get(path.size() - 1), Set.of())) {
            if (next.equals(path.get(0))) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(next);
                found.add(cycle);
            } else if (!path.contains(next) && next.compareTo(path.get(0)) > 0) {
                path.add(next);
                walk(graph, path, found);
                path.remove(path.size() - 1);
            }
        }
    }

    @Test
    void noPackageCycle() throws IOException {
        Map<String, Set<String>> graph = graph();
        assertThat(graph).containsKeys("rollout", "snapshot", "probe", "common");
        assertThat(cycles(graph)).as("package cycles in %s", graph).isEmpty();
    }

    @Test
    void commonDependsOnNoOtherPackage() throws IOException {
        assertThat(graph().get("common")).isEmpty();
    }

    @Test
    void theSearchFindsACycleWhenThereIsOne() {
        assertThat(cycles(Map.of("rollout", Set.of("snapshot"), "snapshot", Set.of("common", "rollout"), "common", Set.of())))
                .containsExactly(List.of("rollout", "snapshot", "rollout"));
    }
}
