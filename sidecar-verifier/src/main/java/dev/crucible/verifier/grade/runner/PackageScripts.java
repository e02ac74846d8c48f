package dev.crucible.verifier.grade.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code npm test}, {@code npm run test:unit}, {@code yarn test}, {@code pnpm test}: the script's text
 * from the grading tree's package.json (a pristine protected file when the environment protects it),
 * run directly with {@code node_modules/.bin} first on PATH, as the package manager would, so its last
 * command can be rewritten like any other. pre/post scripts are not run.
 */
final class PackageScripts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PackageScripts() {}

    /** The script a package-manager command runs, with the PATH line npm would set; empty for other commands. */
    static Optional<String> expand(TestCommand c, Path root) {
        String pm = c.program();
        if (!pm.equals("npm") && !pm.equals("yarn") && !pm.equals("pnpm") && !pm.equals("bun")) return Optional.empty();
        String name;
        int extra;
        if (c.arg(1).equals("test") || c.arg(1).equals("t")) {
            name = "test";
            extra = 2;
        } else if (c.arg(1).equals("run") && !c.arg(2).isEmpty()) {
            name = c.arg(2);
            extra = 3;
        } else if (!pm.equals("npm") && !c.arg(1).isEmpty() && !c.arg(1).startsWith("-")) {
            name = c.arg(1); // yarn test:unit
            extra = 2;
        } else {
            return Optional.empty();
        }
        if (extra < c.words().size()) return Optional.empty(); // arguments passed on to the script: left as written
        Path pkg = root.resolve("package.json");
        if (!Files.isRegularFile(pkg, LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        try {
            JsonNode script = JSON.readTree(Files.readAllBytes(pkg)).path("scripts").path(name);
            if (!script.isTextual() || script.asText().isBlank()) return Optional.empty();
            String head = c.head();
            return Optional.of(head + (head.isEmpty() || head.endsWith("\n") ? "" : " ") + "export PATH=\"$PWD/node_modules/.bin:$PATH\"\n"
                    + String.join(" ", c.assignments()) + (c.assignments().isEmpty() ? "" : " ") + script.asText().strip());
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
