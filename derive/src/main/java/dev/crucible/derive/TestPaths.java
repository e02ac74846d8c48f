package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where each ecosystem keeps its tests, as {@code verifier.protectedPaths} globs: an agent that edits a
 * test to make it pass is graded on the pristine test instead. Globs are relative to the workspace and
 * written twice where needed ({@code tests/**} and {@code **}{@code /tests/**}) because a Java glob's
 * {@code **}{@code /} needs at least one folder in front.
 */
final class TestPaths {
    static final List<String> PYTHON = List.of("tests/**", "**/tests/**", "test/**", "**/test/**", "test_*.py",
            "**/test_*.py", "*_test.py", "**/*_test.py", "test.py", "tests.py");
    static final List<String> GO = List.of("*_test.go", "**/*_test.go", "testdata/**", "**/testdata/**");
    static final List<String> NODE = List.of("test/**", "tests/**", "**/__tests__/**", "__tests__/**",
            "*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}", "**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
            "*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}", "**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}");
    static final List<String> JVM = List.of("src/test/**", "**/src/test/**", "src/integrationTest/**",
            "**/src/integrationTest/**");
    static final List<String> RUST = List.of("tests/**", "**/tests/**", "benches/**", "**/benches/**");

    private TestPaths() {
    }

    /**
     * The test globs for the ecosystems the job uses: from its toolchains and the verifier's command;
     * all of them when neither names one.
     */
    static List<String> protectedGlobs(Map<String, String> toolchains, String verifierCommand) {
        Set<String> eco = ecosystems(toolchains, verifierCommand);
        Set<String> out = new LinkedHashSet<>();
        if (eco.isEmpty() || eco.contains("python")) {
            out.addAll(PYTHON);
        }
        if (eco.isEmpty() || eco.contains("go")) {
            out.addAll(GO);
        }
        if (eco.isEmpty() || eco.contains("node")) {
            out.addAll(NODE);
        }
        if (eco.isEmpty() || eco.contains("java")) {
            out.addAll(JVM);
        }
        if (eco.isEmpty() || eco.contains("rust")) {
            out.addAll(RUST);
        }
        return new ArrayList<>(out);
    }

    static Set<String> ecosystems(Map<String, String> toolchains, String command) {
        Set<String> eco = new LinkedHashSet<>();
        for (String t : toolchains.keySet()) {
            switch (t) {
                case "python", "uv" -> eco.add("python");
                case "node", "pnpm", "bun", "deno" -> eco.add("node");
                case "java", "gradle", "maven" -> eco.add("java");
                case "go" -> eco.add("go");
                case "rust" -> eco.add("rust");
                default -> {
                }
            }
        }
        String c = command == null ? "" : command.toLowerCase(Locale.ROOT);
        if (c.matches("(?s).*\\b(pytest|py\\.test|tox|nox|unittest|python[0-9.]*|uv|poetry|hatch)\\b.*")) {
            eco.add("python");
        }
        if (c.matches("(?s).*\\bgo test\\b.*")) {
            eco.add("go");
        }
        if (c.matches("(?s).*\\b(cargo)\\b.*")) {
            eco.add("rust");
        }
        if (c.matches("(?s).*\\b(npm|yarn|pnpm|npx|jest|vitest|mocha|node)\\b.*")) {
            eco.add("node");
        }
        if (c.matches("(?s).*\\b(mvn|mvnw|gradle|gradlew)\\b.*")) {
            eco.add("java");
        }
        return eco;
    }
}
