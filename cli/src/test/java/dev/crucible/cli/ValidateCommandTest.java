package dev.crucible.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible validate} through the real command line: exit codes, output format. */
class ValidateCommandTest {

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (!Files.exists(p.resolve("examples"))) {
            p = p.getParent();
        }
        return p;
    }

    @Test
    void examplesFolderIsValid() {
        Path examples = root().resolve("examples");
        Run r = run("validate", "-f", examples.resolve("python-bugfix").toString(),
                examples.resolve("gpu-distributed").toString(), examples.resolve("snapshots").toString(),
                examples.resolve("probe/probemodel.yaml").toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).matches("(?s)\\d+ documents valid\\s*");
    }

    @Test
    void wholeExamplesFolderIsValidAndItsIgnoreFileKeepsTheInvalidOnesOut() {
        Path examples = root().resolve("examples");
        Run r = run("validate", "-f", examples.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        // Named explicitly, an ignored file is still checked.
        Run bad = run("validate", "-f", examples.resolve("invalid/01-env-missing-verifier.yaml").toString());
        assertThat(bad.exit()).isEqualTo(2);
    }

    @Test
    void invalidFileExitsTwoWithOneLinePerError(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, """
                apiVersion: crucible.dev/v1alpha1
                kind: RolloutSnapshot
                metadata:
                  name: s1
                spec:
                  rolloutRef: {name: r1}
                  timeoutSeconds: 1
                  colour: blue
                """);
        Run r = run("validate", "-f", bad.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(bad + ":7: spec.timeoutSeconds: ")
                .contains(bad + ":8: spec.colour: unknown field")
                .contains("2 errors in 1 document");
        assertThat(r.err().lines()).hasSize(3);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void missingFileAndMissingFlagExitTwo(@TempDir Path dir) {
        Run missing = run("validate", "-f", dir.resolve("nope.yaml").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("nope.yaml").contains("no such file");
        Run noFlag = run("validate");
        assertThat(noFlag.exit()).isEqualTo(2);
        assertThat(noFlag.err()).contains("--filename");
    }

    @Test
    void plainFormWithoutPicocliPrintsAndExitsAsPicocliDoes(@TempDir Path dir) throws Exception {
        Path examples = root().resolve("examples");
        String env = examples.resolve("python-bugfix/environment.yaml").toString();
        String rollout = examples.resolve("python-bugfix/rollout.yaml").toString();
        String bad = examples.resolve("invalid/01-env-missing-verifier.yaml").toString();
        String[][] plainForms = {
            {"validate", "-f", env},
            {"validate", "-f", rollout},
            {"validate", "--filename", env, rollout, bad},
            {"validate", "-f", env, "--out", dir.toString(), "-f", bad},
            {"validate", "-f", dir.resolve("missing.yaml").toString()},
        };
        for (String[] args : plainForms) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            Integer exit = ValidateCommand.plain(args, new PrintWriter(out), new PrintWriter(err));
            Run viaPicocli = run(args);
            assertThat(exit).as(String.join(" ", args)).isEqualTo(viaPicocli.exit());
            assertThat(out.toString()).isEqualTo(viaPicocli.out());
            assertThat(err.toString()).isEqualTo(viaPicocli.err());
        }
        // Anything else is left to picocli (help, = forms, repeated or unknown options, missing values).
        String[][] picocliForms = {
            {"validate", "--help"}, {"validate", "-f"}, {"validate", "-f", "--out", "x"},
            {"validate", "--filename=" + env}, {"validate", "-f", env, "--out", "a", "--out", "b"},
            {"validate", "-f", env, "--bogus"}, {"validate", "-f", "@args.txt"}, {"validate", env, "-f", env},
            {"validate", "-f", env, "--out"}, {"run", "-f", env},
        };
        for (String[] args : picocliForms) {
            assertThat(ValidateCommand.plain(args, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())))
                    .as(String.join(" ", args)).isNull();
        }
    }
}
