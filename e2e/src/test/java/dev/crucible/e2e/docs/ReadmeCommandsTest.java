package dev.crucible.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every command a README (or docs/) names can be started on this machine: each tracked executable
 * that a Markdown file mentions answers {@code --help} with its header and nothing else (so asking
 * for help never starts a cluster or an install), and each {@code crucible SUB [SUB2]} written in a
 * code span or block is a command the CLI has. A renamed script or subcommand left in a README
 * fails here instead of on a user's fresh machine.
 */
@Timeout(600)
class ReadmeCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Not started here: the build tool and the CLI launcher are exercised by every other test. */
    private static final Set<String> NOT_SCRIPTS = Set.of("mvnw", "crucible");
    private static final Pattern INLINE = Pattern.compile("`[^`]+`");
    private static final Pattern CLI = Pattern.compile("(?:^|[\\s;&|(])(?:\\./)?crucible((?: [a-z][a-z-]*(?![/\\w.-])){1,2})");

    @Test
    void everyScriptAReadmeNamesAnswersHelpWithItsHeader() throws Exception {
        String docs = allMarkdown();
        List<String> named = new ArrayList<>();
        for (String path : trackedExecutables()) if (!NOT_SCRIPTS.contains(path) && docs.contains(path)) named.add(path);
        assertThat(named).as("executables the READMEs name").contains("e2e/real-node/up", "images/build-all", ".ci/run");
        for (String path : named) {
            Run r = run(List.of(ROOT.resolve(path).toString(), "--help"));
            assertThat(r.code).as(path + " --help exits 0; output:\n" + r.out).isZero();
            if (path.endsWith(".py")) {
                assertThat(r.out).as(path + " --help").startsWith("usage:");
            } else {
                assertThat(r.out).as(path + " --help prints its header comment and nothing else").isEqualTo(header(ROOT.resolve(path)));
            }
        }
    }

    @Test
    void everyCrucibleCommandInACodeSpanExists() throws Exception {
        TreeMap<String, Set<String>> commands = new TreeMap<>();
        for (Path md : markdownFiles()) {
            for (String code : codeIn(Files.readAllLines(md))) {
                Matcher m = CLI.matcher(code);
                while (m.find()) commands.computeIfAbsent(m.group(1).strip(), k -> new TreeSet<>()).add(ROOT.relativize(md).toString());
            }
        }
        assertThat(commands).as("crucible commands in the READMEs' code").containsKeys("run", "validate", "derive");
        Set<String> checked = new TreeSet<>();
        for (var e : commands.entrySet()) {
            String[] words = e.getKey().split(" ");
            Run top = help(words[0]);
            assertThat(top.code).as("`crucible " + words[0] + "` (named in " + e.getValue() + ") is a command; --help said:\n" + top.out).isZero();
            checked.add(words[0]);
            // A second word is a subcommand only where the first lists it (else it is an argument, like a folder).
            if (words.length == 2 && top.out.contains("Commands:") && top.out.matches("(?s).*\\n\\s+" + Pattern.quote(words[1]) + "\\s.*")) {
                Run sub = help(words[0], words[1]);
                assertThat(sub.code).as("`crucible " + e.getKey() + "` --help; said:\n" + sub.out).isZero();
                assertThat(sub.out).contains("crucible " + e.getKey());
                checked.add(e.getKey());
            }
        }
        assertThat(checked).as("subcommands checked").contains("integrity bench", "probe train");
    }

    /**
     * The READMEs' offline builds ({@code ./mvnw -o ... install}) work after the README's two commands: every lifecycle
     * phase they name resolves its plugins from the local repository alone. `verify` never needs the install plugin, so
     * without .ci/run fetching it a fresh machine stopped at the first offline install (issue 40, point 7).
     */
    @Test
    void everyOfflineMavenPhaseAReadmeNamesFindsItsPlugins() throws Exception {
        Set<String> phases = new TreeSet<>();
        Pattern phase = Pattern.compile("(?<![\\w:-])(compile|test|package|verify|install)(?![\\w:-])");
        for (Path md : markdownFiles()) {
            for (String code : codeIn(Files.readAllLines(md))) {
                if (!code.contains("mvnw") || !code.matches(".*\\s-o(\\s.*|$|`)")) continue;
                Matcher m = phase.matcher(code.substring(code.indexOf("mvnw")));
                while (m.find()) phases.add(m.group(1));
            }
        }
        assertThat(phases).as("phases in the READMEs' offline ./mvnw commands").contains("install");
        for (String p : phases) {
            // -N: the root pom alone, so the check is seconds; its packaging binds the same install and resources plugins
            Run r = run(List.of(ROOT.resolve("mvnw").toString(), "-B", "-o", "-q", "-N", "-DskipTests", p));
            assertThat(r.code).as("./mvnw -B -o -N " + p + " (offline, as the READMEs run it); said:\n" + r.out).isZero();
        }
    }

    /** The code of a Markdown file: fenced and indented blocks whole, and the inline spans of other lines. */
    static List<String> codeIn(List<String> lines) {
        List<String> code = new ArrayList<>();
        boolean fenced = false;
        for (String l : lines) {
            if (l.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (fenced || l.startsWith("    ") || l.startsWith("\t")) {
                code.add(l);
            } else {
                Matcher m = INLINE.matcher(l);
                while (m.find()) code.add(m.group());
            }
        }
        return code;
    }

    private static Run help(String... words) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ROOT.resolve("crucible").toString()));
        argv.addAll(List.of(words));
        argv.add("--help");
        return run(argv);
    }

    /** Lines 2.. of the script up to its first line that is not a comment, without the "# ". */
    static String header(Path script) throws IOException {
        StringBuilder b = new StringBuilder();
        List<String> lines = Files.readAllLines(script);
        for (int i = 1; i < lines.size() && lines.get(i).startsWith("#"); i++) b.append(lines.get(i).replaceFirst("^# ?", "")).append('\n');
        return b.toString();
    }

    private static List<String> trackedExecutables() throws Exception {
        Run r = run(List.of("git", "-C", ROOT.toString(), "ls-files", "-s"));
        assertThat(r.code).as("git ls-files: " + r.out).isZero();
        List<String> out = new ArrayList<>();
        for (String l : r.out.split("\n")) if (l.startsWith("100755 ")) out.add(l.substring(l.indexOf('\t') + 1));
        return out;
    }

    private static List<Path> markdownFiles() throws Exception {
        Run r = run(List.of("git", "-C", ROOT.toString(), "ls-files", "*.md"));
        List<Path> out = new ArrayList<>();
        for (String l : r.out.split("\n")) if (!l.isBlank() && !l.contains("/src/test/")) out.add(ROOT.resolve(l));
        return out;
    }

    private static String allMarkdown() throws Exception {
        StringBuilder b = new StringBuilder();
        for (Path p : markdownFiles()) b.append(Files.readString(p)).append('\n');
        return b.toString();
    }

    private record Run(int code, String out) {}

    private static Run run(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(ROOT.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(argv + " did not end in 120 s");
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
