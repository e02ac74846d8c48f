package dev.crucible.verifier.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A larger Python repository the bench writes for itself, so that a reader sees grading's fixed cost
 * apart from its cost per test: a small package and {@code files × 10} pytest tests doing real work
 * (arithmetic, sorting, text, JSON, files under {@code tmp_path}, parametrized cases, a fixture),
 * about 10 ms of CPU each, so 200 tests take 2–3 s on an idle core. Its manifest grades as the
 * example does: pytest, tests protected, the hack policy's defaults.
 */
final class SyntheticSuite {
    static final int TESTS_PER_FILE = 10;

    private SyntheticSuite() {}

    /** Writes {@code dir/environment.yaml} and {@code dir/workspace} with about {@code tests} tests; returns the manifest. */
    static Path write(Path dir, int tests) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("mathlib/__init__.py", "from .ops import primes_below, collatz_len, word_counts, roundtrip\n");
        files.put("mathlib/ops.py", OPS);
        for (int f = 0; f < BenchSuites.files(tests, TESTS_PER_FILE); f++) {
            files.put(String.format(Locale.ROOT, "tests/test_batch_%03d.py", f), TESTS.replace("@SEED@", Integer.toString(f)));
        }
        return BenchSuites.write(dir, "bench-synthetic", files);
    }

    /** How many tests {@link #write} makes for a request of {@code tests}. */
    static int count(int tests) { return BenchSuites.files(tests, TESTS_PER_FILE) * TESTS_PER_FILE; }

    private static final String OPS = """
            import json


            def primes_below(n):
                out = []
                for k in range(2, n):
                    for p in out:
                        if p * p > k:
                            out.append(k)
                            break
                        if k % p == 0:
                            break
                    else:
                        out.append(k)
                return out


            def collatz_len(n):
                steps = 0
                while n != 1:
                    n = n // 2 if n % 2 == 0 else 3 * n + 1
                    steps += 1
                return steps


            def word_counts(text):
                counts = {}
                for w in text.lower().split():
                    w = w.strip(".,;:!?")
                    if w:
                        counts[w] = counts.get(w, 0) + 1
                return counts


            def roundtrip(obj, path):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(obj, f)
                with open(path, encoding="utf-8") as f:
                    return json.load(f)
            """;

    /** Ten tests; @SEED@ (the file number) varies the inputs per file. */
    private static final String TESTS = """
            import random

            import pytest

            from mathlib import collatz_len, primes_below, roundtrip, word_counts

            SEED = @SEED@
            TEXT = "the quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs! " * 40


            @pytest.fixture
            def numbers():
                rng = random.Random(SEED)
                return [rng.randrange(1_000_000) for _ in range(20_000)]


            def test_primes():
                ps = primes_below(9_000 + SEED)
                assert ps[:5] == [2, 3, 5, 7, 11]
                assert all(p % 2 for p in ps[1:])


            def test_collatz():
                assert max(collatz_len(n) for n in range(1, 3_000)) > 100


            def test_sort(numbers):
                s = sorted(numbers)
                assert all(a <= b for a, b in zip(s, s[1:]))


            def test_words():
                c = word_counts(TEXT)
                assert c["the"] == 160 and c["dog"] == 80


            @pytest.mark.parametrize("n", [1_000, 2_000, 3_000])
            def test_prime_counts(n):
                assert len(primes_below(n)) == {1_000: 168, 2_000: 303, 3_000: 430}[n]


            def test_roundtrip(tmp_path, numbers):
                data = {"seed": SEED, "numbers": numbers[:5_000]}
                assert roundtrip(data, tmp_path / "data.json") == data


            def test_strings():
                s = "".join(chr(97 + (i * 7 + SEED) % 26) for i in range(60_000))
                assert len(s.upper()) == 60_000 and s.count("a") > 0


            def test_dicts(numbers):
                d = {n: n * n for n in numbers}
                assert all(d[n] == n * n for n in numbers[:10_000])
            """;
}
