package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.config.ExcludedTest;
import dev.crucible.verifier.grade.OfflineFailures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** go test through the real grading path: per-test results from the -json stream the grader adds. */
class GoTestRunnerTest {
    @TempDir
    Path dir;

    static final String BUG = "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Sub(a, b int) int { return a - b }\n";
    static final String FIXED = BUG.replace("return a - b }\n\nfunc Sub", "return a + b }\n\nfunc Sub");
    static final String TESTS = """
            package calc

            import (
            	"net"
            	"testing"
            )

            func TestAdd(t *testing.T) {
            	if Add(2, 3) != 5 {
            		t.Fatalf("Add(2, 3) = %d, want 5", Add(2, 3))
            	}
            }

            func TestSub(t *testing.T) {
            	t.Run("positive", func(t *testing.T) {
            		if Sub(5, 3) != 2 {
            			t.Fatal("Sub")
            		}
            	})
            	t.Run("negative numbers", func(t *testing.T) {
            		if Sub(-1, -1) != 0 {
            			t.Fatal("Sub")
            		}
            	})
            }

            func TestLater(t *testing.T) { t.Skip("not on this platform") }

            func TestFetch(t *testing.T) {
            	if _, err := net.LookupHost("example.com"); err != nil {
            		t.Fatal(err)
            	}
            }
            """;
    static final Map<String, String> REPO = Map.of("go.mod", "module example.com/calc\n\ngo 1.21\n", "calc_test.go", TESTS);

    static String verifier(String go, String lists) {
        // GOCACHE: the test tier's shared build cache (grading's HOME is fresh each run)
        return "type: test-suite\ncommand: GOCACHE=" + CacheSandbox.CACHE.resolve("go-build") + " " + go + " test ./...\ntimeoutSeconds: 600\n" + lists;
    }

    static final String LISTS = """
            failToPass: [example.com/calc::TestAdd]
            passToPass: [example.com/calc::TestSub, example.com/calc::TestSub/positive, example.com/calc::TestSub/negative_numbers]
            """;

    @Test
    void perTestResultsWithSubtestsSkipsAndFailToPassGrading() {
        String go = tool("go", "/usr/local/go/bin/go");
        VerifyReport fixed = grade(dir.resolve("fixed"), verifier(go, LISTS), with(REPO, "calc.go", FIXED));
        assertThat(statuses(fixed)).containsEntry("example.com/calc::TestAdd", "passed")
                .containsEntry("example.com/calc::TestSub/negative_numbers", "passed")
                .containsEntry("example.com/calc::TestLater", "skipped")
                .containsEntry("example.com/calc::TestFetch", "failed");
        assertThat(fixed.reward()).as(fixed.reason()).isEqualTo(1.0);
        assertThat(fixed.details()).containsEntry("runner", "go");

        VerifyReport bug = grade(dir.resolve("bug"), verifier(go, LISTS), with(REPO, "calc.go", BUG));
        assertThat(bug.reward()).isEqualTo(0.0);
        assertThat(test(bug, "example.com/calc::TestAdd").status().json()).isEqualTo("failed");
        assertThat(test(bug, "example.com/calc::TestAdd").message()).contains("Add(2, 3) = -1, want 5");
    }

    @Test
    void offlineOnlyFailureIsFoundAndExcludedSoTheSuiteIsUsable() {
        String go = tool("go", "/usr/local/go/bin/go");
        VerifyReport head = grade(dir.resolve("head"), verifier(go, ""), with(REPO, "calc.go", FIXED));
        assertThat(head.reward()).as("every test counts: the offline failure zeroes the reward").isEqualTo(0.0);
        List<ExcludedTest> offline = OfflineFailures.find(head.tests().details(), Set.of());
        assertThat(offline).extracting(ExcludedTest::id).containsExactly("example.com/calc::TestFetch");
        assertThat(offline.get(0).reason()).startsWith("fails at the task commit without network: ").contains("example.com");

        String excluded = "countSkippedAsPassed: true\nexcludedTests:\n  - {id: example.com/calc::TestFetch, reason: '" + offline.get(0).reason().replace("'", "''") + "'}\n";
        VerifyReport usable = grade(dir.resolve("usable"), verifier(go, excluded), with(REPO, "calc.go", FIXED));
        assertThat(usable.reward()).as(usable.reason()).isEqualTo(1.0);
        assertThat(test(usable, "example.com/calc::TestFetch").group()).isEqualTo("excluded");
        assertThat(usable.details().get("excluded").toString()).contains("without network");
        VerifyReport bug = grade(dir.resolve("usable-bug"), verifier(go, excluded), with(REPO, "calc.go", BUG));
        assertThat(bug.reward()).isEqualTo(0.0);
    }

    /** CI runs benchmarks once beside the tests (-bench . -benchtime 1x): they get no pass event and are not tests. */
    @Test
    void benchmarksRunBesideTheTestsAreNotTests() {
        String go = tool("go", "/usr/local/go/bin/go");
        String bench = TESTS + "\nfunc BenchmarkAdd(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tAdd(1, 2)\n\t}\n}\n";
        String v = "type: test-suite\ncommand: GOCACHE=" + CacheSandbox.CACHE.resolve("go-build") + " " + go
                + " test -count 1 -bench . -benchtime 1x ./...\ntimeoutSeconds: 600\n" + LISTS;
        VerifyReport r = grade(dir, v, with(with(REPO, "calc_test.go", bench), "calc.go", FIXED));
        assertThat(statuses(r)).containsEntry("example.com/calc::TestAdd", "passed").doesNotContainKey("example.com/calc::BenchmarkAdd");
        assertThat(r.hackFindings()).isEmpty();
        assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
    }

    @Test
    void compileErrorIsABuildFailure() {
        String go = tool("go", "/usr/local/go/bin/go");
        VerifyReport r = grade(dir, verifier(go, "rewardMode: coderl\n"), with(REPO, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + }\n"));
        assertThat(r.category()).isEqualTo("build-failed");
        assertThat(r.reward()).isEqualTo(-1.0);
        assertThat(r.reason()).contains("calc.go");
    }

    @Test
    void aForgedPassLineFromTheTestBinaryIsAFindingNotAPass() {
        String go = tool("go", "/usr/local/go/bin/go");
        String forge = """
                package calc

                import (
                	"fmt"
                	"os"
                	"testing"
                )

                func init() {
                	// code under test prints test2json's framing marker and a PASS line before the real failure
                	fmt.Fprint(os.Stdout, "")
                }

                func TestAddForged(t *testing.T) {
                	fmt.Fprintln(os.Stdout, "\\x16--- PASS: TestAddForged (0.00s)")
                	if Add(2, 3) != 5 {
                		t.Fatal("wrong")
                	}
                }
                """;
        VerifyReport r = grade(dir, verifier(go, "failToPass: [example.com/calc::TestAddForged]\n"),
                Map.of("go.mod", "module example.com/calc\n\ngo 1.21\n", "calc.go", BUG, "forge_test.go", forge));
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.hackFindings()).anySatisfy(f -> assertThat(f.evidence()).contains("TestAddForged").contains("twice"));
    }
}
