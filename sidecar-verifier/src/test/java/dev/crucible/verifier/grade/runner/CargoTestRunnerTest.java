package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cargo test through the real grading path: libtest's human output read per binary (no dependencies, offline). */
class CargoTestRunnerTest {
    @TempDir
    Path dir;

    static final String LIB = """
            /// Adds two numbers.
            /// ```
            /// assert_eq!(fixture::add(1, 2), 3);
            /// ```
            pub fn add(a: i32, b: i32) -> i32 { a BODY b }

            #[cfg(test)]
            mod tests {
                #[test]
                fn adds() { assert_eq!(super::add(2, 3), 5); }
                #[test]
                fn zero() { assert_eq!(super::add(0, 0), 0); }
                #[test]
                #[ignore = "slow"]
                fn slow() {}
            }
            """;
    static final String IT = "#[test]\nfn smoke() { println!(\"test smoke ... ok\"); assert_eq!(fixture::add(0, 0), 0); }\n";
    static final Map<String, String> REPO = Map.of("Cargo.toml", "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            "tests/it.rs", IT);

    static String verifier(String extra) {
        String cargo = tool("cargo", System.getProperty("user.home") + "/.cargo/bin/cargo");
        Path home = Path.of(cargo).getParent().getParent();
        String rustup = System.getenv().getOrDefault("RUSTUP_HOME", System.getProperty("user.home") + "/.rustup");
        // grading's PATH and HOME are its own: name the toolchain homes explicitly (the rustup proxy needs them)
        String env = Files.isDirectory(Path.of(rustup)) ? "RUSTUP_HOME=" + rustup + " CARGO_HOME=" + home + " " : "";
        return "type: test-suite\ncommand: " + env + cargo + " test --offline\ntimeoutSeconds: 300\n" + extra;
    }

    static final String LISTS = """
            failToPass: [fixture/src/lib.rs::tests::adds]
            passToPass: [fixture/src/lib.rs::tests::zero, it/tests/it.rs::smoke, "fixture/doc::src/lib.rs - add (line 2)"]
            """;

    @Test
    void perTestResultsAcrossBinariesAndFailToPassGrading() {
        String v = verifier(LISTS);
        VerifyReport fixed = grade(dir.resolve("fixed"), v, with(REPO, "src/lib.rs", LIB.replace("BODY", "+")));
        assertThat(statuses(fixed)).containsEntry("fixture/src/lib.rs::tests::adds", "passed")
                .containsEntry("fixture/src/lib.rs::tests::slow", "skipped")
                .containsEntry("it/tests/it.rs::smoke", "passed")
                .containsEntry("fixture/doc::src/lib.rs - add (line 2)", "passed")
                .hasSize(5);
        assertThat(fixed.reward()).as(fixed.reason()).isEqualTo(1.0);
        assertThat(fixed.hackFindings()).isEmpty();

        VerifyReport bug = grade(dir.resolve("bug"), v, with(REPO, "src/lib.rs", LIB.replace("BODY", "-")));
        assertThat(bug.reward()).isEqualTo(0.0);
        assertThat(test(bug, "fixture/src/lib.rs::tests::adds").status().json()).isEqualTo("failed");
        assertThat(test(bug, "fixture/src/lib.rs::tests::adds").message()).contains("left: -1");
        assertThat(test(bug, "fixture/doc::src/lib.rs - add (line 2)").status().json()).isEqualTo("failed");
    }

    @Test
    void compileErrorIsABuildFailure() {
        VerifyReport r = grade(dir, verifier("rewardMode: coderl\n"), with(REPO, "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + }\n"));
        assertThat(r.category()).as(r.reason()).isEqualTo("build-failed");
        assertThat(r.reward()).isEqualTo(-1.0);
    }
}
