package dev.crucible.verifier.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The isolated oracle's worst case, written by the bench for itself: tests that do almost no work of their own
 * but call into the code under test {@link #CALLS} times or more each, in the shapes real suites use (a function in a
 * loop with an assertion per call, keyword arguments, a generator fed to {@code max}/{@code sum}, method calls on a
 * stateful object, attribute reads, indexing, {@code in}, iteration of a generator, value objects compared with
 * {@code ==}). In-process each call costs well under a microsecond; isolated, each is at least one round trip to
 * the worker, so this suite shows the wire's cost per call, and {@link SyntheticSuite} (real work per test) shows it
 * diluted. Expected values are computed by the tests themselves in plain Python, so the suite passes as written.
 */
final class CallHeavySuite {
    static final int TESTS_PER_FILE = 10;
    /** Calls into the tree that each test's loop makes (some shapes make two or three round trips per call). */
    static final int CALLS = 1000;

    private CallHeavySuite() {}

    /** Writes {@code dir/environment.yaml} and {@code dir/workspace} with about {@code tests} tests; returns the manifest. */
    static Path write(Path dir, int tests) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("shapes/__init__.py", "from .objects import Counter, Point, Table, evens, square_mod\n");
        files.put("shapes/objects.py", TREE);
        for (int f = 0; f < BenchSuites.files(tests, TESTS_PER_FILE); f++) {
            files.put(String.format(Locale.ROOT, "tests/test_calls_%03d.py", f), TESTS.replace("@CALLS@", Integer.toString(CALLS)));
        }
        return BenchSuites.write(dir, "bench-call-heavy", files);
    }

    /** How many tests {@link #write} makes for a request of {@code tests}. */
    static int count(int tests) { return BenchSuites.files(tests, TESTS_PER_FILE) * TESTS_PER_FILE; }

    private static final String TREE = """
            def square_mod(n, m=7):
                return n * n % m


            def evens(limit):
                for i in range(0, limit, 2):
                    yield i


            class Counter:
                def __init__(self):
                    self.count = 0
                    self.seen = {}

                def add(self, key, n=1):
                    self.count += n
                    self.seen[key] = self.seen.get(key, 0) + n
                    return self.count

                def get(self, key):
                    return self.seen.get(key, 0)


            class Point:
                __slots__ = ("x", "y")

                def __init__(self, x, y):
                    self.x, self.y = x, y

                def __eq__(self, other):
                    return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

                def __hash__(self):
                    return hash((self.x, self.y))

                def shifted(self, dx, dy):
                    return Point(self.x + dx, self.y + dy)


            class Table:
                def __init__(self, n):
                    self._d = {i: i * 3 for i in range(n)}

                def __getitem__(self, k):
                    return self._d[k]

                def __len__(self):
                    return len(self._d)

                def __contains__(self, k):
                    return k in self._d
            """;

    /** Ten tests of about @CALLS@ calls each. */
    private static final String TESTS = """
            from shapes import Counter, Point, Table, evens, square_mod

            N = @CALLS@


            def test_function_in_a_loop():
                for i in range(N):
                    assert square_mod(i) == i * i % 7


            def test_keyword_arguments():
                assert sum(square_mod(i, m=11) for i in range(N)) == sum(i * i % 11 for i in range(N))


            def test_generator_fed_to_max():
                assert max(square_mod(i, 1000) for i in range(N)) == max(i * i % 1000 for i in range(N))


            def test_method_calls():
                c = Counter()
                for i in range(N):
                    c.add(i % 10)
                assert c.count == N and c.get(3) == N // 10


            def test_attribute_reads():
                c = Counter()
                c.add("k", 5)
                assert all(c.count == 5 for _ in range(N))


            def test_iterating_a_generator():
                assert sum(evens(2 * N)) == sum(range(0, 2 * N, 2))


            def test_indexing():
                t = Table(N)
                assert len(t) == N
                assert all(t[i] == 3 * i for i in range(N))


            def test_membership():
                t = Table(N)
                assert sum(1 for i in range(2 * N) if i in t) == N


            def test_value_objects_built_by_methods():
                p = Point(0, 0)
                for _ in range(N // 2):
                    p = p.shifted(1, 2)
                assert p == Point(N // 2, N)


            def test_value_objects_compared():
                assert all(Point(i, -i) == Point(i, -i) for i in range(N // 4))
            """;
}
