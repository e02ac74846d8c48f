package dev.crucible.verifier.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * CLI tests, written by the bench for itself: each test starts the package's own program ({@code python -m wc}) and
 * checks what it prints or writes into {@code tmp_path}, as a command-line tool's suite does. Isolated, each such
 * process runs in a box of its own on a copy of the tree (the grading process's children cannot reach the test files);
 * in-process it is a plain child of pytest. So this suite shows what a started process costs under isolation.
 */
final class ChildSuite {
    static final int TESTS_PER_FILE = 5;

    private ChildSuite() {}

    /** Writes {@code dir/environment.yaml} and {@code dir/workspace} with about {@code tests} tests; returns the manifest. */
    static Path write(Path dir, int tests) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("wc/__init__.py", "from .count import counts\n");
        files.put("wc/count.py", COUNT);
        files.put("wc/__main__.py", MAIN);
        for (int f = 0; f < BenchSuites.files(tests, TESTS_PER_FILE); f++) {
            files.put(String.format(Locale.ROOT, "tests/test_cli_%03d.py", f), TESTS.replace("@SEED@", Integer.toString(f)));
        }
        return BenchSuites.write(dir, "bench-children", files);
    }

    /** How many tests {@link #write} makes for a request of {@code tests}. */
    static int count(int tests) { return BenchSuites.files(tests, TESTS_PER_FILE) * TESTS_PER_FILE; }

    private static final String COUNT = """
            def counts(text):
                return len(text.splitlines()), len(text.split()), len(text)
            """;

    private static final String MAIN = """
            import argparse
            import sys

            from wc.count import counts


            def main(argv=None):
                p = argparse.ArgumentParser(prog="wc")
                p.add_argument("file", nargs="?")
                p.add_argument("-o", "--output")
                a = p.parse_args(argv)
                text = open(a.file, encoding="utf-8").read() if a.file else sys.stdin.read()
                line = "%d %d %d" % counts(text)
                if a.output:
                    with open(a.output, "w", encoding="utf-8") as f:
                        f.write(line + "\\n")
                else:
                    print(line)
                return 0


            sys.exit(main())
            """;

    /** Five tests, each starting the program once; @SEED@ (the file number) varies the inputs per file. */
    private static final String TESTS = """
            import subprocess
            import sys

            SEED = @SEED@


            def wc(*args, stdin=None):
                p = subprocess.run([sys.executable, "-m", "wc", *args], input=stdin, capture_output=True, text=True, timeout=120)
                assert p.returncode == 0, p.stderr
                return p.stdout.strip()


            def test_counts_stdin():
                assert wc(stdin="a b\\nc\\n" * (SEED + 1)) == "%d %d %d" % (2 * (SEED + 1), 3 * (SEED + 1), 6 * (SEED + 1))


            def test_counts_a_file(tmp_path):
                f = tmp_path / "in.txt"
                f.write_text("one two three\\n" * (SEED + 2), encoding="utf-8")
                assert wc(str(f)) == "%d %d %d" % (SEED + 2, 3 * (SEED + 2), 14 * (SEED + 2))


            def test_writes_its_output_file(tmp_path):
                out = tmp_path / "out.txt"
                assert wc("-o", str(out), stdin="x\\n") == ""
                assert out.read_text(encoding="utf-8") == "1 1 2\\n"


            def test_empty_input():
                assert wc(stdin="") == "0 0 0"


            def test_bad_file_fails():
                p = subprocess.run([sys.executable, "-m", "wc", "/no/such/file-%d" % SEED], capture_output=True, text=True, timeout=120)
                assert p.returncode != 0 and "No such file" in p.stderr
            """;
}
